/**
 * The wire side of the emulator: reading a Bot API request in any of the encodings
 * Telegram accepts (query string, JSON, urlencoded, multipart) into one parameter record
 * plus uploaded files, and writing answers the way Telegram does.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BotApiError } from "./types.js";

/** A file part of a multipart request. */
export interface UploadedFile {
  readonly fileName: string;
  readonly mimeType: string;
  readonly bytes: Buffer;
  /** Leave `file_size` out of the document and getFile, as Telegram may. */
  readonly omitFileSize?: boolean;
}

export interface ParsedRequest {
  readonly params: Record<string, unknown>;
  readonly files: ReadonlyMap<string, UploadedFile>;
}

/** Bots may upload up to 50 MB; a little headroom covers the multipart framing. */
const MAX_BODY_BYTES = 52 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BotApiError(413, "Request Entity Too Large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function parseJsonBody(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw new BotApiError(400, "Bad Request: can't parse JSON object");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new BotApiError(400, "Bad Request: can't parse JSON object");
  }
  return { ...parsed };
}

/** undici's multipart parser (the one behind `fetch`) reads the form, as browsers send it. */
async function parseMultipart(body: Buffer, contentType: string): Promise<ParsedRequest> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new BotApiError(400, "Bad Request: can't parse multipart/form-data");
  }
  const params: Record<string, unknown> = {};
  const files = new Map<string, UploadedFile>();
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      params[name] = value;
    } else {
      const bytes = Buffer.from(await value.arrayBuffer());
      files.set(name, { fileName: value.name, mimeType: value.type, bytes });
    }
  }
  return { params, files };
}

/** Reads parameters from the query string and the body, whatever its encoding. */
export async function readBotApiRequest(req: IncomingMessage, url: URL): Promise<ParsedRequest> {
  const query: Record<string, unknown> = Object.fromEntries(url.searchParams.entries());
  const body = await readBody(req);
  const contentType = req.headers["content-type"] ?? "";
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (mediaType === "multipart/form-data") {
    const { params, files } = await parseMultipart(body, contentType);
    return { params: { ...query, ...params }, files };
  }
  if (mediaType === "application/x-www-form-urlencoded") {
    const form = Object.fromEntries(new URLSearchParams(body.toString("utf8")).entries());
    return { params: { ...query, ...form }, files: new Map() };
  }
  const json = mediaType === "application/json" || body.length > 0 ? parseJsonBody(body) : {};
  return { params: { ...query, ...json }, files: new Map() };
}

/** Parameters as recorded in `calls`: uploads replaced by a short description of the file. */
export function describeParams(request: ParsedRequest): Record<string, unknown> {
  const described: Record<string, unknown> = { ...request.params };
  for (const [name, file] of request.files) {
    described[name] = { fileName: file.fileName, mimeType: file.mimeType, size: file.bytes.length };
  }
  return described;
}

/** Writes a JSON body with the HTTP status Telegram pairs with it. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** `{ok: true, result}`. */
export function sendResult(res: ServerResponse, result: unknown): void {
  sendJson(res, 200, { ok: true, result });
}

/** `{ok: false, error_code, description, parameters?}` with the matching status. */
export function sendError(res: ServerResponse, error: BotApiError): void {
  sendJson(res, error.errorCode, error.toBody());
}
