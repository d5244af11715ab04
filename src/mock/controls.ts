/**
 * Test-only controls of the mock under `/__mock/`, off unless the server is started with
 * `controls: true` (then `/__mock/*` answers 404 like any unknown route). They sit outside the rate
 * limiter and fault injection, so a test can always steer the mock:
 * - `POST /__mock/clock/advance {ms}` and `POST /__mock/clock/set {time}` move the mock's clock;
 * - `POST /__mock/scenario {name}` switches the exchange scenario;
 * - `POST /__mock/faults {config}` sets faults (a preset name or a config object);
 * - `POST /__mock/modify-layout {layout}` switches the signed modifyOrders layout the exchange verifies;
 * - `GET /__mock/state` reports clock, scenario and faults.
 * Every successful control answers 200 with the new state.
 */
import { z } from 'zod'
import { BotError, InputValidationError } from '../errors.ts'
import { formatZodIssues } from '../http/callJson.ts'
import type { MockHandler, MockRequest, MockResponse } from './mockHttp.ts'

export const CONTROLS_PREFIX = '/__mock'

/** What the controls act on; the server implements it. Setters throw `InputValidationError` on bad input. */
export interface MockControlTarget {
  advanceClock(ms: number): void
  setClock(time: number): void
  setScenario(name: string): void
  /** A preset name or a fault config object (validated by the target). */
  setFaults(config: unknown): void
  /** Switches the signed modifyOrders layout the exchange verifies; absent = route not served. */
  setModifyOrdersLayout?: ((layout: string) => void) | undefined
  /** JSON-serializable snapshot for `GET /__mock/state`. */
  state(): unknown
}

export interface ControlsOptions {
  enabled: boolean
  target: MockControlTarget
}

const AdvanceBody = z.looseObject({ ms: z.number().finite().min(0) })
const SetBody = z.looseObject({ time: z.number().finite() })
const ScenarioBody = z.looseObject({ name: z.string().min(1) })
const FaultsBody = z.looseObject({ config: z.union([z.string(), z.record(z.string(), z.unknown())]) })
const LayoutBody = z.looseObject({ layout: z.string().min(1).max(100) })

/** True for paths the controls own (whether or not they are enabled). */
export function isControlRoute(path: string): boolean {
  return path === CONTROLS_PREFIX || path.startsWith(`${CONTROLS_PREFIX}/`)
}

const notFound = (): MockResponse => ({ status: 404, body: { status: 'err', error: 'not_found' } })
const badRequest = (error: string): MockResponse => ({ status: 400, body: { status: 'err', error } })

/** Serves `/__mock/*` when enabled (404 when not) and passes everything else to `handler`. */
export function withControls(handler: MockHandler, options: ControlsOptions): MockHandler {
  return (req) => {
    if (!isControlRoute(req.path)) return handler(req)
    if (!options.enabled) return notFound()
    return control(req, options.target)
  }
}

function control(req: MockRequest, target: MockControlTarget): MockResponse {
  const route = `${req.method} ${req.path.slice(CONTROLS_PREFIX.length)}`
  try {
    switch (route) {
      case 'GET /state':
        break
      case 'POST /clock/advance':
        target.advanceClock(parse(AdvanceBody, req.body).ms)
        break
      case 'POST /clock/set':
        target.setClock(parse(SetBody, req.body).time)
        break
      case 'POST /scenario':
        target.setScenario(parse(ScenarioBody, req.body).name)
        break
      case 'POST /faults':
        target.setFaults(parse(FaultsBody, req.body).config)
        break
      case 'POST /modify-layout':
        if (target.setModifyOrdersLayout === undefined) return notFound()
        target.setModifyOrdersLayout(parse(LayoutBody, req.body).layout)
        break
      default:
        return notFound()
    }
  } catch (e) {
    if (e instanceof BotError) return badRequest(e.shortMessage)
    throw e
  }
  return { status: 200, body: target.state() }
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body)
  if (!r.success) throw new InputValidationError(`invalid body: ${formatZodIssues(r.error).join('; ')}`)
  return r.data
}
