export const name = 'dshaudit-fixture-pass'
export function apply(ctx) {}
