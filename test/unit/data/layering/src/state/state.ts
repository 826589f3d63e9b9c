// Allowed: a domain room with no imports.
export const nodes = (): string[] => []
