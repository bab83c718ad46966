/**
 * docs/images/metrics-dashboard.png, from real data: `npx tsx bench/metrics-dashboard.ts`.
 * Grafana does not run here, so this draws the dashboard's main panels itself. It starts the
 * real app (startApp, METRICS_ENABLED=true) on Redis against the sandbox and the Telegram
 * emulator, lets three payers run /pay flows for about a minute (successes, failures,
 * cancellations, one over the approval threshold, one disbursement whose answer is lost so
 * it turns unknown, a few 503s and a 429 injected at the sandbox), scrapes `GET /metrics`
 * every 3 s, and draws what the scrapes say as an HTML page that Chromium screenshots.
 * Nothing is made up: every point is a scraped value or the difference of two.
 */
import { chromium } from "playwright-core";
import { startApp } from "../src/app.js";
import { loadConfig } from "../src/config/index.js";
import { type EmulatedUser, startTelegramEmulator } from "../src/dev/telegram-emulator/index.js";
import { silentLogger } from "../src/logger.js";
import { startSandbox } from "../src/sandbox/index.js";
import { benchRedisUrl, withPrefix } from "./setup.js";

const RUN_MS = 60_000;
const SCRAPE_EVERY_MS = 3_000;
const OUT = new URL("../docs/images/metrics-dashboard.png", import.meta.url).pathname;
const PAYERS = [2001, 2002, 2003];

type Samples = Map<string, number>;

/** name{labels} → value, labels as written by prom-client (sorted as registered). */
function parse(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** Sum of the samples of `name` whose labels contain every `key="value"` of `having`. */
function sum(samples: Samples, name: string, having: string[] = []): number {
  let total = 0;
  for (const [key, value] of samples) {
    const bare = key.split("{")[0];
    if (bare === name && having.every((label) => key.includes(label))) total += value;
  }
  return total;
}

/** The `q` quantile of a histogram from its cumulative buckets (as histogram_quantile does). */
function quantile(samples: Samples, name: string, q: number, before?: Samples): number {
  const buckets = new Map<number, number>();
  for (const [key, value] of samples) {
    if (!key.startsWith(`${name}_bucket{`)) continue;
    const le = /le="([^"]+)"/.exec(key)?.[1] ?? "+Inf";
    const bound = le === "+Inf" ? Infinity : Number(le);
    const earlier = before?.get(key) ?? 0;
    buckets.set(bound, (buckets.get(bound) ?? 0) + value - earlier);
  }
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  const count = sorted.at(-1)?.[1] ?? 0;
  if (count === 0) return 0;
  let previousBound = 0;
  let previousCount = 0;
  for (const [bound, cumulative] of sorted) {
    if (cumulative >= q * count) {
      if (bound === Infinity) return previousBound;
      const inBucket = cumulative - previousCount;
      return previousBound + (bound - previousBound) * ((q * count - previousCount) / inBucket);
    }
    previousBound = bound;
    previousCount = cumulative;
  }
  return previousBound;
}

interface Series {
  label: string;
  points: number[];
}

interface Panel {
  title: string;
  unit: string;
  series: Series[];
}

const COLORS = ["#73bf69", "#f2cc0c", "#5794f2", "#ff780a", "#f2495c", "#b877d9", "#8ab8ff"];

function chart(panel: Panel, times: number[]): string {
  const width = 470;
  const height = 190;
  const left = 52;
  const max = Math.max(1e-9, ...panel.series.flatMap((series) => series.points));
  const x = (index: number) => left + (index / Math.max(1, times.length - 1)) * (width - left - 8);
  const y = (value: number) => 10 + (1 - value / max) * (height - 30);
  const grid = [0, 0.5, 1]
    .map(
      (share) =>
        `<line x1="${left}" x2="${width - 8}" y1="${y(max * share)}" y2="${y(max * share)}" stroke="#2c3235"/>` +
        `<text x="${left - 6}" y="${y(max * share) + 4}" text-anchor="end">${format(max * share, panel.unit)}</text>`,
    )
    .join("");
  const lines = panel.series
    .map((series, index) => {
      const path = series.points.map((value, i) => `${x(i).toFixed(1)},${y(value).toFixed(1)}`);
      return `<polyline fill="none" stroke="${COLORS[index % COLORS.length]}" stroke-width="2" points="${path.join(" ")}"/>`;
    })
    .join("");
  const seconds = `<text x="${left}" y="${height - 4}">0 s</text><text x="${width - 8}" y="${height - 4}" text-anchor="end">${Math.round((times.at(-1) ?? 0) / 1000)} s</text>`;
  const legend = panel.series
    .map(
      (series, index) =>
        `<span><i style="background:${COLORS[index % COLORS.length]}"></i>${series.label} <b>${format(series.points.at(-1) ?? 0, panel.unit)}</b></span>`,
    )
    .join("");
  return `<section><h2>${panel.title}</h2><svg width="${width}" height="${height}">${grid}${lines}${seconds}</svg><div class="legend">${legend}</div></section>`;
}

function format(value: number, unit: string): string {
  if (unit === "ms") return `${value.toFixed(value < 10 ? 1 : 0)} ms`;
  if (unit === "XAF") return value >= 1000 ? `${(value / 1000).toFixed(0)}k XAF` : `${value} XAF`;
  if (unit === "MB") return `${value.toFixed(0)} MB`;
  if (unit === "%") return `${value.toFixed(1)} %`;
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** The panels, from the scrapes (per interval: the difference of two scrapes). */
function panels(scrapes: Samples[]): Panel[] {
  const each = (f: (now: Samples, before: Samples | undefined) => number) =>
    scrapes.map((now, index) => f(now, scrapes[index - 1]));
  const delta = (name: string, having: string[] = []) =>
    each((now, before) => (before ? sum(now, name, having) - sum(before, name, having) : 0));
  const gauge = (name: string, having: string[] = []) => each((now) => sum(now, name, having));
  const p = "payout_bot_";
  const perInterval = `per ${SCRAPE_EVERY_MS / 1000} s`;
  const latency = (name: string, q: number) =>
    each((now, before) => (before ? quantile(now, name, q, before) * 1000 : 0));
  return [
    {
      title: "Payouts waiting",
      unit: "",
      series: ["pending", "unknown", "awaiting_approval"].map((state) => ({
        label: state,
        points: gauge(`${p}payouts_in_state`, [`state="${state}"`]),
      })),
    },
    {
      title: `Payout moves by state (${perInterval})`,
      unit: "",
      series: ["submitting", "pending", "success", "failed", "canceled", "unknown"].map((to) => ({
        label: to,
        points: delta(`${p}payout_moves_total`, [`to="${to}"`]),
      })),
    },
    {
      title: "Money paid (cumulative)",
      unit: "XAF",
      series: ["mtn", "orange"].map((operator) => ({
        label: operator,
        points: gauge(`${p}paid_xaf_total`, [`operator="${operator}"`]),
      })),
    },
    {
      title: `Payment API requests by status (${perInterval})`,
      unit: "",
      series: ["200", "201", "429", "503", "reset"].map((status) => ({
        label: status,
        points: delta(`${p}payment_api_requests_total`, [`status="${status}"`]),
      })),
    },
    {
      title: "Payment API latency (per interval)",
      unit: "ms",
      series: [
        { label: "p50", points: latency(`${p}payment_api_request_duration_seconds`, 0.5) },
        { label: "p99", points: latency(`${p}payment_api_request_duration_seconds`, 0.99) },
      ],
    },
    {
      title: `429s and retries (${perInterval})`,
      unit: "",
      series: [
        { label: "429", points: delta(`${p}payment_api_requests_total`, ['status="429"']) },
        { label: "retries", points: delta(`${p}payment_api_retries_total`) },
      ],
    },
    {
      title: "Rate-limit slots used vs limit",
      unit: "",
      series: [
        { label: "used", points: gauge(`${p}payment_api_rate_limit_used`) },
        { label: "limit", points: gauge(`${p}payment_api_rate_limit`) },
      ],
    },
    {
      title: "Outbox and tracking backlog",
      unit: "",
      series: [
        { label: "outbox", points: gauge(`${p}outbox_backlog`) },
        { label: "tracked (polls)", points: gauge(`${p}tracking_backlog`) },
      ],
    },
    {
      title: "Loop lag p99 (per interval)",
      unit: "ms",
      series: ["tracking tick", "notification round", "schedule round"].map((loop) => ({
        label: loop,
        points: each((now, before) => {
          if (!before) return 0;
          const only = (s: Samples) =>
            new Map([...s].filter(([key]) => key.includes(`loop="${loop}"`)));
          return quantile(only(now), `${p}loop_lag_seconds`, 0.99, only(before)) * 1000;
        }),
      })),
    },
    {
      title: "Redis command latency (per interval)",
      unit: "ms",
      series: [
        { label: "p50", points: latency(`${p}redis_command_duration_seconds`, 0.5) },
        { label: "p99", points: latency(`${p}redis_command_duration_seconds`, 0.99) },
      ],
    },
    {
      title: "Process CPU",
      unit: "%",
      series: [
        {
          label: "CPU",
          points: each((now, before) =>
            before
              ? ((sum(now, `${p}process_cpu_seconds_total`) -
                  sum(before, `${p}process_cpu_seconds_total`)) /
                  (SCRAPE_EVERY_MS / 1000)) *
                100
              : 0,
          ),
        },
      ],
    },
    {
      title: "Process memory",
      unit: "MB",
      series: [
        {
          label: "RSS",
          points: gauge(`${p}process_resident_memory_bytes`).map((b) => b / 1_048_576),
        },
        {
          label: "heap used",
          points: gauge(`${p}nodejs_heap_size_used_bytes`).map((b) => b / 1_048_576),
        },
      ],
    },
  ];
}

function page(scrapes: Samples[], times: number[], durability: string): string {
  const body = panels(scrapes)
    .map((panel) => chart(panel, times))
    .join("");
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;padding:16px;background:#111217;color:#ccccdc;font:13px system-ui,sans-serif}
header{display:flex;justify-content:space-between;align-items:baseline;margin:0 4px 12px}
h1{font-size:18px;margin:0;color:#fff} header p{margin:0;color:#8e8e8e}
main{display:grid;grid-template-columns:repeat(3,1fr);gap:10px}
section{background:#181b1f;border:1px solid #2c3235;border-radius:4px;padding:8px 10px}
h2{font-size:13px;margin:0 0 6px;color:#fff;font-weight:500}
svg text{fill:#8e8e8e;font-size:10px} .legend{display:flex;flex-wrap:wrap;gap:4px 12px;font-size:11px}
.legend i{display:inline-block;width:10px;height:3px;margin-right:4px;vertical-align:middle}
</style></head><body><header><h1>Payout bot</h1><p>Durable writes plan: <b>${durability}</b> ·
${scrapes.length} scrapes of GET /metrics, every ${SCRAPE_EVERY_MS / 1000} s, of one real run
(bench/metrics-dashboard.ts) · drawn by that script, not Grafana</p></header>
<main>${body}</main></body></html>`;
}

/** One payer's flows until `untilMs`: /pay, Confirm, then wait for the prompt to move on. */
async function payLoop(
  emulator: Awaited<ReturnType<typeof startTelegramEmulator>>,
  user: EmulatedUser,
  commands: string[],
  untilMs: number,
): Promise<void> {
  for (let turn = 0; Date.now() < untilMs; turn++) {
    const command = commands[turn % commands.length] ?? "/pay 237670000001 1000";
    const prompt = emulator.waitForMessage(
      (m) => m.chatId === user.id && (m.replyMarkup ?? []).some((row) => row.length > 1),
      15_000,
    );
    await user.sendText(command);
    const shown = await prompt.catch(() => undefined);
    if (!shown) continue;
    const moved = emulator.waitForMessage(
      (m) => m.messageId === shown.messageId && (m.replyMarkup?.length ?? 0) === 0,
      15_000,
    );
    await user.pressButton(shown, 0);
    await moved.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ settleDelayMs: 1500, rateLimitPerMinute: 0 });
  const emulator = await startTelegramEmulator({ maxPollWaitMs: 1000 });
  try {
    await withPrefix(
      { redisUrl: benchRedisUrl(), quick: true, log: () => {} },
      "shot",
      async (_r, prefix) => {
        const env = {
          TELEGRAM_BOT_TOKEN: emulator.token,
          TELEGRAM_API_ROOT: emulator.apiRoot,
          PAYMENT_API_KEY: sandbox.apiKey,
          PAYMENT_API_BASE_URL: sandbox.url,
          PAYMENT_SIGNATURE_PUBLIC_KEY: sandbox.publicKeyPem,
          REDIS_URL: benchRedisUrl(),
          REDIS_KEY_PREFIX: prefix,
          STAFF: ["1:admin", ...PAYERS.map((id) => `${id}:payer`)].join(","),
          HTTP_HOST: "127.0.0.1",
          HTTP_PORT: "0",
          // Production's 300 requests a minute: polls of the pending payouts share it with /pay.
          PAYMENT_ENV: "production",
          STATUS_POLL_INTERVAL_MS: "3000",
          PAYMENT_TIMEOUT_MS: "3000",
          APPROVAL_THRESHOLD_XAF: "500000",
          METRICS_ENABLED: "true",
          LOG_LEVEL: "silent",
        };
        const app = await startApp({
          config: loadConfig(env, "start"),
          logger: silentLogger,
          pollTimeoutSeconds: 1,
        });
        try {
          const url = `${app.http?.url}/metrics`;
          const startedMs = Date.now();
          const untilMs = startedMs + RUN_MS;
          const users = PAYERS.map((id, index) =>
            emulator.user({ id, firstName: `Payer ${index + 1}`, languageCode: "en" }),
          );
          const flows = [
            ["/pay 237670000001 5000", "/pay 237690000001 12000", "/pay 237670000002 3000"],
            ["/pay 237690000001 25000", "/pay 237670000005 4000", "/pay 237670000001 8000"],
            ["/pay 237670000003 7000", "/pay 237690000002 2000", "/pay 237670000001 900000"],
          ];
          const scrapes: Samples[] = [];
          const times: number[] = [];
          const scraping = (async () => {
            while (Date.now() < untilMs + SCRAPE_EVERY_MS) {
              scrapes.push(parse(await (await fetch(url)).text()));
              times.push(Date.now() - startedMs);
              await new Promise((resolve) => setTimeout(resolve, SCRAPE_EVERY_MS));
            }
          })();
          // Trouble at the API, as it comes: 503s on status reads (retried), a 429 on a name
          // look-up (retried), and one disbursement whose answer is lost (unknown).
          setTimeout(() => {
            sandbox.injectFault({ method: "GET", path: /^\/payments\//, status: 503, times: 6 });
          }, 10_000);
          setTimeout(() => {
            sandbox.injectFault({
              method: "GET",
              path: /^\/data\/userinfo\//,
              status: 429,
              retryAfterSeconds: 1,
            });
          }, 18_000);
          setTimeout(() => {
            sandbox.injectFault({
              method: "POST",
              path: "/disburse",
              destroySocket: true,
              afterHandling: true,
            });
          }, 26_000);
          await Promise.all(
            users.map((user, index) => payLoop(emulator, user, flows[index] ?? [], untilMs)),
          );
          await scraping;
          const durability = [...(scrapes.at(-1) ?? new Map())]
            .filter(([key, value]) => key.startsWith("payout_bot_redis_durability") && value === 1)
            .map(([key]) => /plan="([^"]+)"/.exec(key)?.[1] ?? "?")
            .join(", ");
          const html = page(scrapes, times, durability || "?");
          const browser = await chromium.launch({
            executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
            args: [
              "--headless",
              "--no-sandbox",
              "--disable-gpu",
              "--disable-background-networking",
            ],
          });
          try {
            const tab = await browser.newPage({ viewport: { width: 1540, height: 900 } });
            await tab.setContent(html);
            await tab.screenshot({ path: OUT, fullPage: true });
          } finally {
            await browser.close();
          }
          process.stdout.write(`${scrapes.length} scrapes drawn into ${OUT}\n`);
        } finally {
          await app.stop();
        }
      },
    );
  } finally {
    await emulator.close();
    await sandbox.close();
  }
}

await main();
