/** A free TCP port on loopback, for the demo's bot and the tests' servers. */
import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 free a moment ago: use it at once (or as a port nothing answers). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))));
    });
  });
}
