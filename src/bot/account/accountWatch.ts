/**
 * The account watch's decisions, pure: observations in, alerts out. Each condition is an episode
 * that alerts once when it starts (and once more when it escalates) and sends one resolved message
 * when it ends, or when it falls to a lower level it goes on at (`remaining`, see alerts/episodes.ts);
 * polling the same state again says nothing. Thresholds carry hysteresis so a ratio
 * hovering at a threshold does not flap.
 */
import type { Alert, Severity } from '../../alerts/alert.ts'
import { fromTicks } from '../../decimal.ts'
import { amount, percent } from '../../format/units.ts'
import type { Portfolio, Withdrawal } from '../../perps/schemas/account.ts'
import { type MarginLevel, parseAccountJournal, type TrackedWithdrawal } from './accountJournal.ts'
import { marginRatio } from './marginRatio.ts'
import { FLAG_EPISODES, FLAGS, type Flag, restoredEpisodes, type StartedText } from './watchEpisodes.ts'

export interface AccountWatchConfig {
  marginWarningRatio: number
  marginCriticalRatio: number
  marginHysteresis: number
  withdrawalPendingWarnMs: number
  proxyExpiryLeadMs: number
  clockSkewWarnMs: number
  rateLimitWarnCount: number
}

type Level = MarginLevel

export interface AccountWatchSnapshot {
  marginLevel: Level
  marginRatio: number | undefined
  inLiquidation: boolean
  /** The account value is zero or below (a closed-out account): the venue refuses every new order. */
  marginExhausted: boolean
  pendingWithdrawals: number
  proxyExpiring: boolean
  rateLimited: boolean
  /** Creates refused at the venue's open-order cap in the recent window. */
  openOrderCapped: boolean
  clockSkewed: boolean
  /** When the last portfolio (read or push) was observed; undefined before the first. */
  portfolioAt: number | undefined
}

/** What survives a restart, so an ongoing episode does not alert again. */
export interface AccountWatchState {
  marginLevel: Level
  inLiquidation: boolean
  marginExhausted: boolean
  proxyExpiring: boolean
  rateLimited: boolean
  openOrderCapped: boolean
  clockSkewed: boolean
  withdrawals: [number, TrackedWithdrawal][]
}

export class AccountWatch {
  #marginLevel: Level = 'ok'
  #ratio: number | undefined
  readonly #withdrawals = new Map<number, TrackedWithdrawal>()
  /** The on/off episodes (FLAG_EPISODES): true while open. */
  readonly #flags: Record<Flag, boolean> = {
    inLiquidation: false,
    marginExhausted: false,
    proxyExpiring: false,
    rateLimited: false,
    openOrderCapped: false,
    clockSkewed: false,
  }
  #portfolioAt: number | undefined
  /** Decimals per collateral asset (by symbol and by address, lower case), for human amounts. */
  readonly #decimals = new Map<string, number>()
  /** The collateral's name as the venue lists it (the first asset), for amounts in messages. */
  #collateral: string | undefined

  readonly #cfg: AccountWatchConfig

  constructor(cfg: AccountWatchConfig) {
    this.#cfg = cfg
  }

  /** The venue's collateral assets (`/v1/info/assets`), so withdrawal amounts read in human units. */
  setAssets(assets: readonly { asset: string; address?: string | undefined; decimals: number }[]): void {
    this.#collateral ??= assets[0]?.asset
    for (const a of assets) {
      this.#decimals.set(a.asset.toLowerCase(), a.decimals)
      if (a.address) this.#decimals.set(a.address.toLowerCase(), a.decimals)
    }
  }

  /** A withdrawal amount (raw base units on the wire) in human units when the asset's decimals are known. */
  #humanAmount(amount: string, asset: string): string {
    const d = this.#decimals.get(asset.toLowerCase())
    // A decimal point: asset units already. Base units without the decimals: unknown, never raw.
    if (!/^\d+$/.test(amount)) return `${amount} ${asset}`
    if (d === undefined) return `an amount of ${asset} not known yet (its decimals are not read yet)`
    return `${fromTicks(BigInt(amount), d)} ${asset}`
  }

  exportState(): AccountWatchState {
    return {
      marginLevel: this.#marginLevel,
      inLiquidation: this.#flags.inLiquidation,
      marginExhausted: this.#flags.marginExhausted,
      proxyExpiring: this.#flags.proxyExpiring,
      rateLimited: this.#flags.rateLimited,
      openOrderCapped: this.#flags.openOrderCapped,
      clockSkewed: this.#flags.clockSkewed,
      withdrawals: [...this.#withdrawals].map(([id, t]) => [id, { ...t }]),
    }
  }

  /**
   * Restores episodes from a previous run's journal (parsed: malformed fields are dropped), silently:
   * the trader heard them before. `restoredEpisodes` then says which are open, for the board.
   */
  importState(journal: unknown): void {
    const s = parseAccountJournal(journal)
    if (s.marginLevel !== undefined) this.#marginLevel = s.marginLevel
    for (const flag of FLAGS) {
      const on = s[flag]
      if (on !== undefined) this.#flags[flag] = on
    }
    for (const [id, t] of s.withdrawals ?? []) this.#withdrawals.set(id, t)
  }

  /**
   * The episodes this watch's state holds open, as alerts told as open before the restart (at `at`):
   * for the alert hub's book after `importState`, never for a sink (watchEpisodes.ts).
   */
  restoredEpisodes(at: number): Alert[] {
    return restoredEpisodes(
      { marginLevel: this.#marginLevel, flags: this.#flags, withdrawals: this.#withdrawals },
      this.#cfg,
      at,
    )
  }

  snapshot(): AccountWatchSnapshot {
    let pending = 0
    for (const w of this.#withdrawals.values()) if (w.status === 'pending') pending++
    return {
      marginLevel: this.#marginLevel,
      marginRatio: this.#ratio,
      inLiquidation: this.#flags.inLiquidation,
      marginExhausted: this.#flags.marginExhausted,
      pendingWithdrawals: pending,
      proxyExpiring: this.#flags.proxyExpiring,
      rateLimited: this.#flags.rateLimited,
      openOrderCapped: this.#flags.openOrderCapped,
      clockSkewed: this.#flags.clockSkewed,
      portfolioAt: this.#portfolioAt,
    }
  }

  /** Oldest creation time among withdrawals still pending (the incremental poll starts there). */
  oldestPendingCreatedAt(): number | undefined {
    let oldest: number | undefined
    for (const w of this.#withdrawals.values()) {
      if (w.status === 'pending' && (oldest === undefined || w.createdAt < oldest)) oldest = w.createdAt
    }
    return oldest
  }

  observePortfolio(p: Portfolio, now: number): Alert[] {
    const alerts: Alert[] = []
    this.#portfolioAt = now
    alerts.push(
      ...this.#episode('inLiquidation', p.in_liquidation, now, () => ({
        message: `The venue reports the account in liquidation: account value ${amount(p.margin.total_account_value, this.#collateral)}, maintenance margin ${amount(p.margin.total_maintenance_margin, this.#collateral)}.`,
        details: {
          accountValue: p.margin.total_account_value,
          maintenanceMargin: p.margin.total_maintenance_margin,
        },
      })),
    )
    // Equity gone (a closed-out account): no margin is in use, so the ratio reads 0, but nothing is
    // back to normal. The margin episode holds its level until there is equity again (issue 33).
    const exhausted = Number(p.margin.total_account_value) <= 0
    alerts.push(
      ...this.#episode('marginExhausted', exhausted, now, () => ({
        message: `The account value is ${amount(p.margin.total_account_value, this.#collateral)}: the venue refuses every new order; the bot quotes nothing until collateral is added.`,
        details: { accountValue: p.margin.total_account_value },
      })),
    )
    const ratio = marginRatio(p)
    this.#ratio = exhausted ? undefined : Number.isFinite(ratio) ? ratio : undefined
    const next = exhausted ? this.#marginLevel : this.#nextMarginLevel(ratio)
    if (next !== this.#marginLevel) {
      const prev = this.#marginLevel
      this.#marginLevel = next
      const { marginWarningRatio: warnAt, marginCriticalRatio: critAt } = this.#cfg
      const threshold = next === 'critical' ? critAt : warnAt
      const details = {
        marginRatio: Number.isFinite(ratio) ? Number(ratio.toFixed(4)) : 'infinite',
        threshold,
      }
      const shown = Number.isFinite(ratio) ? percent(ratio) : 'infinite (no equity left)'
      if (next === 'ok') {
        // One message closes the episode, whatever its level (no `remaining`): straight from critical
        // the warning under it ends too, and the trader reads it once.
        alerts.push(
          resolved(
            'margin',
            prev,
            'Margin ratio back to normal',
            `Margin ratio ${shown} is back below the warning threshold ${percent(warnAt)}.`,
            now,
            { ...details, threshold: warnAt },
          ),
        )
      } else if (rank(next) > rank(prev)) {
        alerts.push(
          alert(
            'margin',
            next,
            `Margin ratio ${next}`,
            `Margin ratio ${shown} crossed the ${next} threshold ${percent(threshold)}.`,
            now,
            details,
          ),
        )
      } else {
        // critical → warning: the critical is over, the episode goes on at warning (`remaining`).
        alerts.push({
          ...resolved(
            'margin',
            'critical',
            'Margin ratio below critical',
            `Margin ratio ${shown} is back below the critical threshold ${percent(critAt)} (still above the warning threshold ${percent(warnAt)}).`,
            now,
            { ...details, threshold: critAt },
          ),
          remaining: 'warning',
        })
      }
    }
    return alerts
  }

  #nextMarginLevel(ratio: number): Level {
    const { marginWarningRatio: w, marginCriticalRatio: c, marginHysteresis: h } = this.#cfg
    const cur = this.#marginLevel
    if (ratio >= c) return 'critical'
    if (cur === 'critical' && ratio > c - h) return 'critical'
    if (ratio >= w) return 'warning'
    if (cur !== 'ok' && ratio > w - h) return 'warning'
    return 'ok'
  }

  /** Rows from a withdrawals poll (any order, may repeat earlier rows). */
  observeWithdrawals(rows: readonly Withdrawal[], now: number): Alert[] {
    const alerts: Alert[] = []
    for (const row of rows) {
      let t = this.#withdrawals.get(row.withdraw_id)
      if (!t) {
        t = {
          status: row.status,
          createdAt: row.created_timestamp,
          pendingAlerted: false,
          terminalAlerted: false,
        }
        this.#withdrawals.set(row.withdraw_id, t)
      }
      const changed = t.status !== row.status
      t.status = row.status
      if ((row.status === 'failed' || row.status === 'removed') && !t.terminalAlerted) {
        t.terminalAlerted = true
        // Told once at critical; it leaves nothing open (the pending warning, if any, ends with it).
        alerts.push({
          ...alert(
            `withdrawal:${row.withdraw_id}`,
            'critical',
            `Withdrawal ${row.status}`,
            `Withdrawal ${row.withdraw_id} of ${this.#humanAmount(row.amount, row.asset)} ${row.status === 'failed' ? 'failed' : 'was removed'}.`,
            now,
            { withdrawId: row.withdraw_id, amount: row.amount, asset: row.asset, to: row.to },
          ),
          final: true,
        })
      } else if (changed && row.status === 'confirmed' && t.pendingAlerted) {
        alerts.push(
          resolved(
            `withdrawal:${row.withdraw_id}`,
            'warning',
            'Withdrawal confirmed',
            `Withdrawal ${row.withdraw_id} confirmed.`,
            now,
          ),
        )
      }
    }
    alerts.push(...this.checkPending(now))
    this.#prune()
    return alerts
  }

  /** Pending withdrawals older than the configured time: one warning each. */
  checkPending(now: number): Alert[] {
    const alerts: Alert[] = []
    for (const [id, t] of this.#withdrawals) {
      if (
        t.status === 'pending' &&
        !t.pendingAlerted &&
        now - t.createdAt > this.#cfg.withdrawalPendingWarnMs
      ) {
        t.pendingAlerted = true
        alerts.push(
          alert(
            `withdrawal:${id}`,
            'warning',
            'Withdrawal pending too long',
            `Withdrawal ${id} has been pending for ${Math.round((now - t.createdAt) / 60_000)} min (warning after ${Math.round(this.#cfg.withdrawalPendingWarnMs / 60_000)} min).`,
            now,
            {
              withdrawId: id,
            },
          ),
        )
      }
    }
    return alerts
  }

  /** Keeps memory bounded: forget settled withdrawals beyond the most recent 1,000. */
  #prune(): void {
    if (this.#withdrawals.size <= 1_000) return
    for (const [id, t] of this.#withdrawals) {
      if (this.#withdrawals.size <= 1_000) break
      if (t.status !== 'pending') this.#withdrawals.delete(id)
    }
  }

  observeProxyExpiry(expiryMs: number | undefined, now: number): Alert[] {
    if (expiryMs === undefined) return []
    return this.#episode('proxyExpiring', expiryMs - now <= this.#cfg.proxyExpiryLeadMs, now, () => ({
      message: `The proxy key expires in ${formatDuration(expiryMs - now)}; create a new one with \`perpbot create-proxy\`.`,
      details: { expiresAt: new Date(expiryMs).toISOString() },
    }))
  }

  /** `count` = 429s seen in the recent window. */
  observeRateLimits(count: number, now: number): Alert[] {
    return this.#episode('rateLimited', count >= this.#cfg.rateLimitWarnCount, now, () => ({
      message: `${count} rate-limit responses (429) in the recent window (warning from ${this.#cfg.rateLimitWarnCount}).`,
      details: { count },
    }))
  }

  /**
   * `count` = requests the venue refused at its open-order cap (429 `open_orders_limit`) in the recent
   * window. Waiting does not clear the cap, so one is worth an operator's attention.
   */
  observeOpenOrderCap(count: number, now: number): Alert[] {
    return this.#episode('openOrderCapped', count > 0, now, () => ({
      message: `The venue refused ${count} request(s) at the open-order cap (429 open_orders_limit) in the recent window: quotes past it are not resting. The ladders are trimmed to quoting.accountOpenOrderCap, so the account holds fewer (a lower tier, or orders from elsewhere): set the cap to what it allows.`,
      details: { count },
    }))
  }

  observeClockSkew(skewMs: number, now: number): Alert[] {
    return this.#episode('clockSkewed', Math.abs(skewMs) > this.#cfg.clockSkewWarnMs, now, () => ({
      message: `Local clock differs from the venue's by ${skewMs} ms (warning beyond ${this.#cfg.clockSkewWarnMs} ms).`,
      details: { skewMs },
    }))
  }

  /**
   * One on/off episode: on a change, the alert that opens it (its text from `started`, read only then)
   * or the resolved one that closes it (FLAG_EPISODES); nothing while it stays as it is.
   */
  #episode(flag: Flag, on: boolean, now: number, started: () => StartedText): Alert[] {
    if (on === this.#flags[flag]) return []
    this.#flags[flag] = on
    const e = FLAG_EPISODES[flag]
    if (!on) return [resolved(e.key, e.severity, e.ended.title, e.ended.message, now)]
    const s = started()
    return [alert(e.key, e.severity, e.title, s.message, now, s.details)]
  }
}

function rank(l: Level): number {
  return l === 'ok' ? 0 : l === 'warning' ? 1 : 2
}

function alert(
  key: string,
  severity: Severity,
  title: string,
  message: string,
  at: number,
  details?: Record<string, string | number | boolean>,
): Alert {
  return details ? { key, severity, title, message, at, details } : { key, severity, title, message, at }
}

function resolved(
  key: string,
  severity: Severity | Level,
  title: string,
  message: string,
  at: number,
  details?: Record<string, string | number | boolean>,
): Alert {
  const sev: Severity = severity === 'ok' ? 'info' : severity
  return { ...alert(key, sev, title, message, at, details), resolved: true }
}

function formatDuration(ms: number): string {
  if (ms <= 0) return '0 min (expired)'
  const h = Math.floor(ms / 3_600_000)
  return h >= 1 ? `${h} h` : `${Math.max(1, Math.round(ms / 60_000))} min`
}
