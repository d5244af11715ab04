/**
 * The tables as Kysely sees them (after every migration). Column types are what both SQLite and
 * PostgreSQL hand back: decimals as text, times as integers (int8 parsed to numbers for PostgreSQL),
 * booleans as 0/1, structured parts (command items, state values) as JSON text.
 */
export interface RunsTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Migration 4: the venue (exchange domain `name/version/chainId`, `mock:<run id>`, '' before migration 4). */
  venue: string
  /** Migration 4: the clock's rate (an accelerated dry run's mock runs faster than the wall). */
  clock_rate: number
  run_id: string
  started_at: number
  stopped_at: number | null
  stop_reason: string | null
  version: string
  mode: string
  config_hash: string
  pid: number
}

export interface CommandsTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Migration 4: the venue (exchange domain `name/version/chainId`, `mock:<run id>`, '' before migration 4). */
  venue: string
  run_id: string
  /** Per run sequence: with run_id the key, so a retried batch cannot write a command twice. */
  seq: number
  ts: number
  kind: string
  outcome: string
  error: string | null
  latency_ms: number
  weight: number
  pid: number
  item_count: number
  /** JSON array of CommandItem. */
  items: string
}

export interface OrderEventsTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Migration 4: the venue (exchange domain `name/version/chainId`, `mock:<run id>`, '' before migration 4). */
  venue: string
  run_id: string
  seq: number
  ts: number
  iid: number
  oid: number | null
  coid: string | null
  state: string
  price: string | null
  qty: string | null
  filled: string | null
}

export interface FillsTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Who numbered the ids: the exchange domain (migration 4; '' before it), `mock:<run id>` a run's own mock. */
  venue: string
  trade_id: string
  order_id: number
  iid: number
  side: string
  price: string
  qty: string
  taker: number
  fee: string
  fee_asset: string
  realized_pnl: string
  liquidation: number
  ts: number
  coid: string | null
  /** stream | rest | reconcile */
  source: string
}

export interface FundingTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Who numbered the ids: the exchange domain (migration 4; '' before it), `mock:<run id>` a run's own mock. */
  venue: string
  key: string
  iid: number
  size: string
  rate: string
  asset: string
  amount: string
  ts: number
}

export interface TransfersTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Who numbered the ids: the exchange domain (migration 4; '' before it), `mock:<run id>` a run's own mock. */
  venue: string
  kind: string
  id: string
  asset: string
  amount: string
  fee: string
  status: string
  ts: number
  updated_at: number
}

export interface PnlSnapshotsTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Who numbered the ids: the exchange domain (migration 4; '' before it), `mock:<run id>` a run's own mock. */
  venue: string
  minute: number
  iid: number
  position: string
  realized_pnl: string
  unrealized_pnl: string
  fees: string
  funding: string
  volume: string
  fills: number
  mode: string
  /** Migration 4: the opening inventory's change in value since the account's first run (not in net). */
  inventory_pnl: string
  /** Migration 4: wall ms of the minute this sample stands for (a run's first and last are partial). */
  span_ms: number
}

/** Migration 2. */
export interface AlertsTable {
  /** Migration 4: the account (owner address, lower case; `unknown` before it was known). */
  account: string
  /** Migration 4: the venue (exchange domain `name/version/chainId`, `mock:<run id>`, '' before migration 4). */
  venue: string
  key: string
  at: number
  resolved: number
  severity: string
  title: string
  message: string
}

/** Migration 2. */
export interface StateTable {
  name: string
  value: string
  at: number
}

/** Migration 4: the account's net PnL (trading, since the account's first run) sampled on the bot clock. */
export interface EquityTable {
  account: string
  venue: string
  at: number
  net: string
}

/**
 * Migration 5: the book's mid at one of our fills (horizon 0) or a horizon after it (1 s, 10 s, 60 s),
 * as the bot saw it; no row: unknown. Keyed by the fill's key (`fill_ts` is the fill's `ts`).
 */
export interface FillMidsTable {
  account: string
  venue: string
  trade_id: string
  order_id: number
  fill_ts: number
  horizon_ms: number
  /** (best bid + best ask) / 2, a decimal string in the instrument's price. */
  mid: string
  /** When the bot received the touch the mid is from (venue clock, Unix ms). */
  at: number
}

export interface JournalDatabase {
  equity: EquityTable
  fill_mids: FillMidsTable
  runs: RunsTable
  commands: CommandsTable
  order_events: OrderEventsTable
  fills: FillsTable
  funding: FundingTable
  transfers: TransfersTable
  pnl_snapshots: PnlSnapshotsTable
  alerts: AlertsTable
  state: StateTable
}
