/**
 * Every example answer the real service publishes (test/fixtures/nkwa-pay/collections.json),
 * served verbatim from a loopback HTTP server and read through our client. Our own sandbox
 * is not the outside world: these bodies are.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PaymentClient } from "../../../src/payments/client.js";

const COLLECTION_PATH = new URL("../../fixtures/nkwa-pay/collections.json", import.meta.url);

const ExampleSchema = z.object({
  name: z.string(),
  code: z.number().int(),
  body: z.string(),
});
const RequestItemSchema = z.object({
  name: z.string(),
  request: z.object({ method: z.string(), url: z.object({ raw: z.string() }) }),
  response: z.array(ExampleSchema),
});
const FolderSchema = z.object({ item: z.array(z.unknown()) });

interface PublishedExample {
  request: string;
  method: string;
  rawUrl: string;
  code: number;
  body: string;
}

/** Every example answer of the collection, whatever folder it sits in. */
function publishedExamples(): PublishedExample[] {
  const collection = FolderSchema.parse(JSON.parse(readFileSync(COLLECTION_PATH, "utf8")));
  const found: PublishedExample[] = [];
  const walk = (items: unknown[]) => {
    for (const item of items) {
      const folder = FolderSchema.safeParse(item);
      if (folder.success && !RequestItemSchema.safeParse(item).success) {
        walk(folder.data.item);
        continue;
      }
      const request = RequestItemSchema.parse(item);
      for (const example of request.response) {
        found.push({
          request: request.name,
          method: request.request.method,
          rawUrl: request.request.url.raw,
          code: example.code,
          body: example.body,
        });
      }
    }
  };
  walk(collection.item);
  return found;
}

const servers: Server[] = [];
const clients: PaymentClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server that answers every request with the example, byte for byte. */
async function serve(example: PublishedExample): Promise<PaymentClient> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(example.code, { "content-type": "application/json" });
      response.end(example.body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const client = new PaymentClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "test-key" });
  clients.push(client);
  return client;
}

/** Calls the endpoint an example belongs to, with the request its answer describes. */
async function call(client: PaymentClient, example: PublishedExample): Promise<unknown> {
  const body = JSON.parse(example.body) as { phoneNumber?: string; amount?: number };
  const request = { amount: body.amount ?? 5000, phoneNumber: body.phoneNumber ?? "237650000000" };
  if (example.rawUrl.endsWith("/collect")) return client.collect(request);
  if (example.rawUrl.endsWith("/disburse")) return client.disburse(request);
  if (example.rawUrl.includes("/payments/")) return client.getPayment("any-id");
  if (example.rawUrl.endsWith("/availability")) return client.getAvailability();
  if (example.rawUrl.includes("/userinfo/")) return client.getUserInfo("237650000000");
  throw new Error(`no client call for ${example.method} ${example.rawUrl}`);
}

describe("the real service's published example answers", () => {
  const examples = publishedExamples();

  it("covers every endpoint the client calls", () => {
    const urls = examples.map((example) => example.rawUrl);
    for (const path of ["/collect", "/disburse", "/payments/", "/availability"]) {
      expect(urls.some((url) => url.includes(path))).toBe(true);
    }
  });

  it.each(examples.map((example) => [`${example.request} (${example.code})`, example] as const))(
    "reads %s through the client",
    async (_name, example) => {
      const client = await serve(example);
      const read = await call(client, example);
      const published = JSON.parse(example.body) as unknown;
      if (Array.isArray(published)) {
        expect(read).toEqual(published);
        return;
      }
      const fields = z.record(z.string(), z.unknown()).parse(published);
      // Every field the service sent with a value is read as it was sent.
      for (const [field, value] of Object.entries(fields)) {
        if (value !== null) expect(read).toHaveProperty(field, value);
      }
    },
  );
});
