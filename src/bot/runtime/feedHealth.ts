/** Failure counts per input feed (poller), for `/status` and the metrics. */
export interface FeedHealth {
  /** Records one failed cycle of `feed`. */
  failed(feed: string, error: unknown): void
  /** Failures so far per feed. */
  counts(): Record<string, number>
}

export function createFeedHealth(): FeedHealth {
  const failures = new Map<string, number>()
  return {
    failed(feed) {
      failures.set(feed, (failures.get(feed) ?? 0) + 1)
    },
    counts: () => Object.fromEntries(failures),
  }
}
