/**
 * The node options the production image runs `perpbot run` with (the Dockerfile's `NODE_OPTIONS`,
 * pinned against this by test/ops/dockerfile.test.ts; the tick-to-trade benches launch the bot with
 * them too, so they measure what production runs).
 *
 * `--max-semi-space-size=8` (MiB; V8's own maximum here is 16): the young generation holds less
 * garbage between scavenges. At 1,000 instruments the bot's rss fell from ~207 to ~189 MiB (venue
 * view, 2026-12-07) for about twice the scavenges, each as short (their cost is the survivors, not
 * the space). V8 fixes the young generation's size when the heap is set up, so this cannot be
 * applied from inside the process as the heap growth policy is (cli/startHeap.ts); NODE_OPTIONS
 * accepts this V8 flag.
 */
export const PRODUCTION_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=8']
