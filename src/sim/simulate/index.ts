/**
 * What `src/research/` reaches of the simulator, in one place (issue 37, point 4): the whole bot on
 * the mock (`runSimulation`, the `--engine bot` backtest and the sweep's bot engine), its settings,
 * and the recorder and summary the fast engine writes its record with.
 */
export type { SimRecord } from './model.ts'
export { createRecorder, type RecordedStatus } from './recorder.ts'
export {
  runSimulation,
  type SimulateOptions,
  type SimulationResult,
  simulationSettings,
} from './runSimulation.ts'
export { maxDrawdown, summarize } from './summary.ts'
