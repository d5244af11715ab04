/**
 * The strategies that ship with perpbot, each with the module it lives in. Bootstrap hands this folder
 * to the registry, which reads this listing at run time (nothing in `src/` imports `strategies/`) and
 * skips the listed modules in its folder scan, so each file is loaded once. A file dropped beside these
 * and named in the config is found by that scan without an entry here.
 */
import type { ListedStrategy } from '../src/strategy/registry.ts'
import { strategy as avellanedaStoikov } from './avellanedaStoikov.ts'
import { strategy as catalogueBias } from './catalogueBias.ts'
import { strategy as indexPeg } from './indexPeg.ts'
import { strategy as volSpread } from './volSpread.ts'

export const strategies: readonly ListedStrategy[] = [
  { module: './indexPeg.ts', strategy: indexPeg },
  { module: './volSpread.ts', strategy: volSpread },
  { module: './catalogueBias.ts', strategy: catalogueBias },
  { module: './avellanedaStoikov.ts', strategy: avellanedaStoikov },
]
