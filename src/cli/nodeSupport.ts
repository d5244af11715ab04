/**
 * Whether the Node running the bot still gets security fixes. Node 20 (the last line where the journal
 * loads better-sqlite3 12) left maintenance on 2026-04-30; the image runs Node 24 LTS. Dates from the
 * Node.js release schedule (https://github.com/nodejs/Release#release-schedule).
 */

/** End of life of each Node line (UTC date), by major version. */
export const NODE_END_OF_LIFE: Readonly<Record<number, string>> = {
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
}

/**
 * The warning to log at start when `version` (as `process.version`) is past its end of life at
 * `nowMs`, undefined otherwise (a line this table does not know is not warned about).
 */
export function nodeEndOfLifeWarning(version: string, nowMs: number): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1])
  const eol = NODE_END_OF_LIFE[major]
  if (eol === undefined || nowMs < Date.parse(`${eol}T00:00:00Z`)) return undefined
  return `Node ${version} is past its end of life (${eol}): no more security fixes; run perpbot on Node 24 LTS (the Docker image does)`
}
