/**
 * Ties a command's zod parser to the signing layer's input type (src/perps/signing/ops.ts), so the two
 * cannot drift: `true satisfies SameShape<z.output<typeof Params>, Input>` fails to compile when either
 * gains, loses or retypes a field, optional ones included (the key sets are compared too). The signing layer
 * sits below the client and cannot import its schemas, hence a tie rather than `z.infer`.
 */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export type SameShape<A, B> = Mutual<A, B> extends true ? Mutual<keyof A, keyof B> : false
