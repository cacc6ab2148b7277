export const name = 'dshaudit-fixture-unstable'
export function apply(ctx) {}
