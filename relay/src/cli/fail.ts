// How a command stops on a mistake it can name: the message alone on stderr, exit status 2.
export function fail(message: string): never {
  console.error(message);
  process.exit(2);
}
