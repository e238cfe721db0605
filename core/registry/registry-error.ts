/** A bad content-type file: one line naming the file, the path inside it and the problem. Stops the boot. */
export class RegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryError';
  }
}
