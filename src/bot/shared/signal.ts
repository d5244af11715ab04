/** The typed one-way signal, kept below every part (src/signal.ts) so the perps throttle can publish on it too. */
export { createSignal, type Signal, type Subscribable } from '../../signal.ts'
