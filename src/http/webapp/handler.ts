/**
 * The Mini App on the bot's HTTP server: the page under `/app/`, the JSON API under
 * `/app/api/`. Every API request is checked in the same order: identity (401), for a
 * change (any method but GET) init data signed in the last 10 minutes (401), the
 * person's rate limit (429), the route (404/405), the role's capability (403); then the
 * route runs. No cookies are ever set: identity travels in each request's header, or for
 * a file fetched by Telegram's own downloader (`/app/file/`), in the link's signature
 * (file-links.ts), checked in the same order but for freshness.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../logger.js";
import type { Capability } from "../../payouts/policy.js";
import { may } from "../../payouts/policy.js";
import {
  authenticateWebApp,
  merchantFields,
  staleForChange,
  type WebAppAuthDeps,
  type WebAppUser,
} from "./auth.js";
import { checkFileLink, FILE_PREFIX } from "./file-links.js";
import { SECURITY_HEADERS } from "./headers.js";
import { matchPath, type WebAppReply, type WebAppRoute } from "./routes.js";
import { chooseEncoding, type StaticFile } from "./static.js";

export const APP_PREFIX = "/app/";
export const API_PREFIX = "/app/api/";

/** A file served to a signed link (file-links.ts) instead of to a request with init data. */
export interface LinkedFile {
  /** The file's name in the link: `/app/file/{name}`. */
  name: string;
  /** What the link's person must still be allowed (read afresh when the link is used). */
  capability: Capability;
  serve(user: WebAppUser, query: URLSearchParams): Promise<WebAppReply>;
}

export interface WebAppHandlerOptions {
  auth: WebAppAuthDeps;
  routes: readonly WebAppRoute[];
  /** Files fetched through signed links (Telegram's `downloadFile`); none by default. */
  linkedFiles?: readonly LinkedFile[];
  /** The merchant whose links these are (MERCHANTS_FILE); undefined: the only one. */
  merchant?: string | undefined;
  /** The built page by file name (see static.ts). */
  files: ReadonlyMap<string, StaticFile>;
  /** Counts one request of `userId`; false when over their limit (across replicas). */
  takeRequest(userId: number): Promise<boolean>;
  logger: Logger;
}

export type ReadBody = (request: IncomingMessage) => Promise<string>;

export interface WebAppHandler {
  /** The API's routes (method and path), as served. */
  readonly routes: ReadonlyArray<Pick<WebAppRoute, "method" | "path">>;
  /** Answers `request` when its path is under `/app/`; false when it is not the Mini App's. */
  handle(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    readBody: ReadBody,
  ): Promise<boolean>;
}

function write(
  response: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    ...extra,
  });
  response.end(body);
}

/** Writes an API answer (JSON, or a file to download), with the Mini App's headers. */
export function writeReply(response: ServerResponse, reply: WebAppReply): void {
  if ("file" in reply) {
    const { name, type, text } = reply.file;
    write(response, 200, type, text, {
      "cache-control": "no-store",
      "content-disposition": `attachment; filename="${name.replace(/[^\w.-]/g, "_")}"`,
    });
    return;
  }
  write(response, reply.status, "application/json; charset=utf-8", JSON.stringify(reply.json), {
    "cache-control": "no-store",
  });
}

export function createWebAppHandler(options: WebAppHandlerOptions): WebAppHandler {
  const { logger } = options;

  const api = async (
    request: IncomingMessage,
    url: URL,
    method: string,
    readBody: ReadBody,
  ): Promise<WebAppReply> => {
    // The freshness a change needs is checked here, for every method but GET and HEAD, before
    // any route is even looked for: a route added later cannot forget it.
    const auth = await authenticateWebApp(request.headers.authorization, options.auth);
    if (auth.outcome === "unauthorized") {
      logger.info({ reason: auth.reason }, "mini app request without valid init data refused");
      return { status: 401, json: { error: "unauthorized", reason: auth.reason } };
    }
    if (auth.outcome === "forbidden") {
      return { status: 403, json: { error: "forbidden", reason: auth.reason } };
    }
    const { user } = auth;
    // Every change, on any route (one added later too), takes fresh init data.
    const stale = staleForChange(method, auth.signedAtMs, options.auth.now());
    if (stale !== null) {
      logger.info({ userId: user.id }, "mini app change with init data too old refused");
      return { status: 401, json: { error: "unauthorized", reason: stale } };
    }
    if (!(await options.takeRequest(user.id))) {
      return { status: 429, json: { error: "too_many_requests" } };
    }
    const path = url.pathname.slice(API_PREFIX.length);
    let pathMatched = false;
    for (const route of options.routes) {
      const params = matchPath(route.path, path);
      if (params === null) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      if (!may(user.role, route.capability)) {
        logger.warn(
          { userId: user.id, path: route.path },
          "mini app request over the role refused",
        );
        return { status: 403, json: { error: "forbidden", reason: "role" } };
      }
      let body: unknown;
      if (method === "POST") {
        const text = await readBody(request);
        try {
          body = text === "" ? {} : JSON.parse(text);
        } catch {
          return { status: 400, json: { error: "body_not_json" } };
        }
      }
      const { signedAtMs } = auth;
      return route.handle({ user, signedAtMs, params, query: url.searchParams, body });
    }
    return pathMatched
      ? { status: 405, json: { error: "method_not_allowed" } }
      : { status: 404, json: { error: "not_found" } };
  };

  const linked = async (url: URL): Promise<WebAppReply> => {
    const { auth } = options;
    const link = checkFileLink(url, auth.botToken, auth.now(), options.merchant);
    if (link.outcome === "forged") {
      logger.warn("mini app file link with a wrong signature refused");
      return { status: 403, json: { error: "forbidden", reason: "bad_link" } };
    }
    if (link.outcome === "expired") return { status: 410, json: { error: "link_expired" } };
    const file = options.linkedFiles?.find((candidate) => candidate.name === link.name);
    if (file === undefined) return { status: 404, json: { error: "not_found" } };
    const role = await auth.staff.roleOf(link.userId);
    if (role === null) return { status: 403, json: { error: "forbidden", reason: "not_staff" } };
    if (!may(role, file.capability)) {
      return { status: 403, json: { error: "forbidden", reason: "role" } };
    }
    if (!(await options.takeRequest(link.userId))) {
      return { status: 429, json: { error: "too_many_requests" } };
    }
    const merchant = await auth.staff.merchantOf?.(link.userId);
    const user = { id: link.userId, role, name: "", language: link.language };
    return file.serve({ ...user, ...merchantFields(merchant) }, link.query);
  };

  return {
    routes: options.routes.map(({ method, path }) => ({ method, path })),
    async handle(request, response, url, readBody) {
      const path = url.pathname;
      if (path !== "/app" && !path.startsWith(APP_PREFIX)) return false;
      const method = request.method ?? "GET";
      if (path.startsWith(API_PREFIX)) {
        writeReply(response, await api(request, url, method, readBody));
        return true;
      }
      if (method !== "GET" && method !== "HEAD") {
        write(response, 405, "text/plain; charset=utf-8", "method not allowed");
        return true;
      }
      if (path.startsWith(FILE_PREFIX)) {
        writeReply(response, await linked(url));
        return true;
      }
      if (path === "/app") {
        write(response, 308, "text/plain; charset=utf-8", "", { location: APP_PREFIX });
        return true;
      }
      const name = path.slice(APP_PREFIX.length) || "index.html";
      const file = options.files.get(name);
      if (file === undefined) {
        write(response, 404, "text/plain; charset=utf-8", "not found");
        return true;
      }
      const encoding = chooseEncoding(file, request.headers["accept-encoding"]);
      const body = encoding === null ? file.body : (file.encoded[encoding] ?? file.body);
      write(response, 200, file.type, method === "HEAD" ? "" : body, {
        "cache-control": file.immutable
          ? "public, max-age=31536000, immutable"
          : name === "index.html"
            ? "no-cache"
            : "public, max-age=300",
        vary: "Accept-Encoding",
        ...(encoding === null ? {} : { "content-encoding": encoding }),
      });
      return true;
    },
  };
}
