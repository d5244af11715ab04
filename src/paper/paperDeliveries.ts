/**
 * The paper book's delivery queue: the in-process transport's answers and the stream hub's pushes
 * (src/sim/simulate/inProcessTransport.ts, mock/stream/inProcessStreamHub.ts) handed to the bot in
 * the order they came, by the queue itself on the event loop. The simulator's queue is emptied by
 * its stepped driver at quiet points; paper runs on wall time with nobody to drive it, so each item
 * goes in a check phase of its own (one `setImmediate` each), after the work the one before it
 * started — the turn a socket's next read would take.
 */
import { createDeliveryQueue, type DeliveryQueue } from '../sim/simulate/inProcessTransport.ts'

export function createSelfDrainingDeliveries(): DeliveryQueue {
  const queue = createDeliveryQueue()
  let booked = false
  const drain = (): void => {
    booked = false
    try {
      queue.deliverOne()
    } finally {
      book()
    }
  }
  const book = (): void => {
    if (booked || queue.size === 0) return
    booked = true
    setImmediate(drain)
  }
  return {
    push(deliver) {
      queue.push(deliver)
      book()
    },
    deliverOne: () => queue.deliverOne(),
    get size() {
      return queue.size
    },
  }
}
