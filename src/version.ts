/** The package version, reported by `/__sim/health`. */
export const VERSION = '0.1.0';
