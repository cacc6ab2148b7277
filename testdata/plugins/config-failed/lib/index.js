export const name = 'dshaudit-fixture-config-failed'
export function apply(ctx) {}
