/**
 * The peer runtime's blocks for the boards it runs on (a Sipeed board's buses and ports): Tern runs as a process on
 * a computer and has no hardware tools, so these stay warnings, each saying why rather than only "unknown".
 */
const HARDWARE: Record<string, string> = {
  'tools.i2c': 'I2C bus access',
  'tools.spi': 'SPI bus access',
  'tools.serial': 'serial port access',
  devices: 'USB device monitoring',
};

/** The warning for an unknown key that is one of the peer runtime's hardware blocks; undefined for any other key. */
export function hardwareWarning(path: string): string | undefined {
  const what = HARDWARE[path];
  return what === undefined
    ? undefined
    : `${path} (${what}) is for the peer runtime's hardware boards: Tern has no hardware tools (ignored)`;
}
