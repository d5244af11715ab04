/**
 * The bot's perps client factory: the connect step and the benchmarks build it alike, so both sign and
 * gate every request the same way.
 */
import type { Clock } from '../../clock.ts'
import type { HttpTransport } from '../../http/transport.ts'
import type {
  PerpsCommandSigner,
  PerpsResponseObserver,
  ProxyCredentials,
  RequestGate,
} from '../../perps/client/context.ts'
import { createPerpsClient, type PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { RotatingProxyKey } from '../../perps/client/rotatingKey.ts'
import type { WeightLimiter } from '../../perps/throttle/weightLimiter.ts'
import type { PerpsEndpoint } from '../../perps/weights.ts'
import type { Random } from '../../random.ts'
import type { Settings } from '../../settings/schema.ts'

/** The bot's authenticated perps client (also built by the benchmarks, so both sign and gate alike). */
export function createBotPerpsClient(o: {
  settings: Settings
  transport: HttpTransport
  clock: Clock
  random: Random
  credentials?: ProxyCredentials | RotatingProxyKey | undefined
  signer: PerpsCommandSigner
  /** Every request passes it (the bot's weight limiter). */
  gate?: RequestGate | undefined
  /** What the venue tells us beside each answer: its rate-limit count, rows it sent that we cannot read. */
  observer?: PerpsResponseObserver | undefined
}): PerpsClient {
  return createPerpsClient({
    transport: o.transport,
    clock: o.clock,
    random: o.random,
    credentials: o.credentials,
    authHeaderNames: { proxy: o.settings.perps.proxyHeader, secret: o.settings.perps.secretHeader },
    signer: o.signer,
    defaultExpAfterMs: o.settings.perps.commandExpiryMs,
    gate: o.gate,
    observer: o.observer,
  })
}

/** The proxy-signed commands: the venue's per-signer `Poly-RateLimit-*` state rides on their answers. */
const SIGNED_COMMANDS: ReadonlySet<PerpsEndpoint> = new Set<PerpsEndpoint>([
  'createOrders',
  'modifyOrders',
  'cancelOrders',
  'cancelOrdersCoid',
  'cancelAll',
  'setAutoCancel',
  'updateLeverage',
  'updateMargin',
])

/**
 * What the bot does with what the venue says beside its answers: its `Poly-RateLimit-*` state of our
 * signer (on a signed command's answer) corrects the limiter's action window (`observeVenueCount`), rows it could not read go to `droppedItems`
 * (a rate-limited "unreadable rows" warning, alerts/venueAlerts.ts).
 */
export function botResponseObserver(o: {
  limiter: Pick<WeightLimiter, 'observeVenueCount'>
  droppedItems?: PerpsResponseObserver['droppedItems'] | undefined
}): PerpsResponseObserver {
  return {
    rateLimit: (endpoint, observation) => {
      if (SIGNED_COMMANDS.has(endpoint)) o.limiter.observeVenueCount(observation)
    },
    ...(o.droppedItems === undefined ? {} : { droppedItems: o.droppedItems }),
  }
}
