export const name = 'dshaudit-fixture-install-failed'
export function apply(ctx) {}
