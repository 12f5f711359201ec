/** The package's version, as `toolpact --version` and the SARIF report give it (a test keeps it equal to package.json's). */
export const VERSION = '0.1.0';
