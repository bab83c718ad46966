/**
 * Calls to `/app/api/`, each with `Authorization: tma <initData>` (the raw init data
 * Telegram gave the page). No cookies: the page keeps nothing between openings.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly reason: string | undefined,
    readonly body: Record<string, unknown>,
  ) {
    super(`${status} ${code}`);
  }
}

let initData = "";
/** The merchant the page shows, once the person switched (MERCHANTS_FILE); none: the server's choice. */
let merchant: string | undefined;

export function setInitData(value: string): void {
  initData = value;
}

/** Every request from now on names `id` (checked by the server: its staff only). */
export function setMerchant(id: string): void {
  merchant = id;
}

const BASE = new URL("api/", document.baseURI || location.href);

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(new URL(path, BASE), {
      ...init,
      credentials: "omit",
      headers: {
        ...(init.headers ?? {}),
        authorization: `tma ${initData}`,
        ...(merchant === undefined ? {} : { "x-merchant": merchant }),
      },
    });
  } catch {
    throw new ApiError(0, "network", undefined, {});
  }
  if (!response.ok) {
    let body: Record<string, unknown> = {};
    try {
      body = (await response.json()) as Record<string, unknown>;
    } catch {
      // not JSON: the status says enough
    }
    const code = typeof body.error === "string" ? body.error : "error";
    const reason = typeof body.reason === "string" ? body.reason : undefined;
    throw new ApiError(response.status, code, reason, body);
  }
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await call(path)).json()) as T;
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await call(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as T;
}

/** A download (the CSV export): its text and the file name the server gave it. */
export async function getFile(path: string): Promise<{ blob: Blob; name: string }> {
  const response = await call(path);
  const disposition = response.headers.get("content-disposition") ?? "";
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? "export.csv";
  return { blob: await response.blob(), name };
}
