export const name = 'dshaudit-fixture-not-registered'
export function apply(ctx) {}
