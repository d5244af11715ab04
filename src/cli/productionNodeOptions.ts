/**
 * The node options the production image runs `perpbot run` with (the Dockerfile's `NODE_OPTIONS`,
 * pinned against this by test/ops/dockerfile.test.ts; the tick-to-trade benches launch the bot with
 * them too, so they measure what production runs).
 *
 * `--max-semi-space-size=4` (MiB; V8's own maximum here is 16): the young generation holds less
 * garbage between scavenges. At 1,000 instruments the bot's rss fell from ~207 to ~189 MiB at 8
 * (venue view, 2026-12-07) and to ~179 MiB at 4 (end and peak, three alternating runs each against
 * 8's 186 / 190: docs/decisions.md), for more scavenges, each as short (their cost is the
 * survivors, not the space), and no measurable change in the bot's CPU. V8 fixes the young generation's size when the heap is set up, so this cannot be
 * applied from inside the process as the heap growth policy is (cli/startHeap.ts); NODE_OPTIONS
 * accepts this V8 flag.
 */
export const PRODUCTION_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=4']
