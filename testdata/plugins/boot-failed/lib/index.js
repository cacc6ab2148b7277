export const name = 'dshaudit-fixture-boot-failed'
export function apply(ctx) { throw new Error('dshaudit-fixture-boot-failed: apply throws on purpose') }
