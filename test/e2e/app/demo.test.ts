/**
 * `npm run demo` as a person runs it: the real command in a child process, typed into
 * through a pipe, its chat read from stdout (plain text, since stdout is not a terminal).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_PEOPLE } from "../../../src/dev/demo-cast.js";
import { translator } from "../../../src/i18n.js";
import { formatAmount } from "../../../src/model/money.js";
import { SCRIPTED_NUMBERS } from "../../../src/sandbox/index.js";
import { freePort } from "../../support/net.js";
import { escapeRegExp, PipedProcess } from "../../support/piped-process.js";
import { waitUntil } from "../../support/processes.js";
import { testRedis, testRedisUrl } from "../../support/redis.js";

const en = translator("en");

function scripted(outcome: string) {
  const entry = SCRIPTED_NUMBERS.find((candidate) => candidate.outcome === outcome);
  if (!entry) throw new Error(`no scripted number for ${outcome}`);
  return {
    national: entry.phone.slice(3),
    name: entry.name ? `${entry.name.firstName} ${entry.name.lastName}` : "",
  };
}

const PROMPT = "you › ";

/** A transcript with what changes from run to run (times, payment ids, references) blanked. */
function comparable(transcript: string): string {
  return transcript
    .replace(/\d{2} \w{3}, \d{2}:\d{2} UTC[+-]?\d*/g, "<time>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<payment id>")
    .replace(/ · [\w-]{16}$/gm, " · <reference>");
}

let demo: PipedProcess | undefined;
let logDir: string | undefined;

function startDemo(
  env: Record<string, string>,
  args: string[] = [],
  { defaults = true }: { defaults?: boolean } = {},
): { demo: PipedProcess; logFile: string } {
  logDir = mkdtempSync(join(tmpdir(), "demo-test-"));
  const logFile = join(logDir, "demo.log");
  demo = new PipedProcess(["demo", ...args], {
    ...(defaults ? { DEMO_SETTLE_DELAY_MS: "300" } : {}),
    DEMO_LOG_FILE: logFile,
    ...env,
  });
  return { demo, logFile };
}

afterEach(async () => {
  demo?.kill();
  await demo?.exited;
  demo = undefined;
  if (logDir) rmSync(logDir, { recursive: true, force: true });
  logDir = undefined;
});

async function countKeys(prefix: string): Promise<number> {
  const redis = testRedis();
  try {
    return (await redis.keys(`${prefix}*`)).length;
  } finally {
    await redis.quit();
  }
}

describe("npm run demo", () => {
  it("pays a scripted number end to end on Redis, then stops cleanly on SIGINT and leaves no keys", async () => {
    const { demo, logFile } = startDemo({ REDIS_URL: testRedisUrl() });
    const [, prefix = ""] = await demo.waitFor(
      /Store: +Redis at \S+, keys under (demo:[0-9a-f]{8}:)/,
    );
    await demo.waitFor(new RegExp(`Logs: +${escapeRegExp(logFile)}`));
    const success = scripted("success");

    demo.type(`/pay ${success.national} 5000`);
    await demo.waitFor(
      new RegExp(
        `${escapeRegExp(success.name)}[\\s\\S]*\\[1\\] ${en.plain("button.confirm")}  \\[2\\] ${en.plain("button.cancel")}`,
      ),
    );
    demo.type("1");
    await demo.waitFor(new RegExp(escapeRegExp(`ⓘ ${en.plain("confirm.sending")}`)));
    await demo.waitFor(new RegExp(`\\(edited\\) › ${escapeRegExp(en.plain("state.pending"))}`));
    // Nothing more is typed: the notification arrives on its own once the sandbox settles.
    const paid = en.plain("notice.paid", { amount: formatAmount(5000, "en"), name: success.name });
    await demo.waitFor(new RegExp(`bot #\\d+ › ${escapeRegExp(paid)}`));
    expect(await countKeys(prefix)).toBeGreaterThan(0);

    demo.child.kill("SIGINT");
    const exit = await demo.exited;
    expect(exit.code).toBe(0);
    expect(demo.output).toContain("Stopped.");
    expect(await countKeys(prefix)).toBe(0);
    // Logs went to the file (settlement came by webhook), none over the chat.
    const logs = readFileSync(logFile, "utf8");
    expect(logs).toContain('"msg":"payment callback handled"');
    // DEMO_LOG_FILE named it: kept, down to the last line.
    expect(logs.trim().split("\n").at(-1)).toContain('"msg":"demo stopped"');
    expect(demo.output).not.toContain('"level"');
    // stdout is a pipe: plain text, no ANSI codes.
    expect(demo.output).not.toContain("\u001b[");
  });

  it("says it runs in memory when no Redis answers, switches roles, and exits at the end of input", async () => {
    const port = await freePort(); // free a moment ago: nothing listens there
    const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}` }, ["--role", "payer"]);
    await demo.waitFor(
      new RegExp(
        `No Redis at redis://127\\.0\\.0\\.1:${port}: running on an in-memory store; nothing is kept after exit\\.`,
      ),
    );
    const noAccount = scripted("no_account");
    demo.type(`/pay ${noAccount.national} 5000`);
    await demo.waitFor(/has no mobile money account/);

    demo.type(":role viewer");
    await demo.waitFor(/You are now Vera, a viewer \(Telegram id 424245\), in Vera's own chat/);
    demo.type(`/pay ${scripted("success").national} 5000`);
    await demo.waitFor(new RegExp(escapeRegExp(en.plain("access.cannot_pay", { role: "viewer" }))));

    demo.child.stdin.end();
    const exit = await demo.exited;
    expect(exit.code).toBe(0);
    expect(demo.output).toContain("Stopped.");
  });

  it("speaks French to a stranger with --lang fr and leaves on :quit", async () => {
    const port = await freePort();
    const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}` }, [
      "--role=stranger",
      "--lang",
      "fr",
    ]);
    await demo.waitFor(/role stranger/);
    demo.type("/help");
    const refused = translator("fr").plain("access.refused", { id: DEMO_PEOPLE.stranger.id });
    await demo.waitFor(new RegExp(escapeRegExp(refused)));

    demo.type(":quit");
    const exit = await demo.exited;
    expect(exit.code).toBe(0);
  });

  it("leaves nothing behind in the temporary directory when it stops", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "demo-tmp-"));
    try {
      const port = await freePort();
      const demo = new PipedProcess(["demo"], {
        DEMO_SETTLE_DELAY_MS: "300",
        REDIS_URL: `redis://127.0.0.1:${port}`,
        TMPDIR: tmp,
      });
      for (const line of ["/pay 670000001 5000", "1", ":quit"]) demo.type(line);
      expect((await demo.exited).code).toBe(0);
      // tsx's own compile cache (tsx-<uid>) is reused by every run, not the demo's.
      expect(readdirSync(tmp).filter((name) => !name.startsWith("tsx-"))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("removes its default log file on a clean exit, and says so at start", async () => {
    const port = await freePort();
    const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}`, DEMO_LOG_FILE: "" });
    const [, logFile = ""] = await demo.waitFor(
      /Logs: +(\S+payout-bot-demo-\d+\.log) \(removed when the demo stops cleanly\)/,
    );
    expect(existsSync(logFile)).toBe(true);

    demo.type(":quit");
    expect((await demo.exited).code).toBe(0);
    expect(existsSync(logFile)).toBe(false);
  });

  it("prints every transcript the README shows, for the same input, with the demo's defaults", async () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    // A transcript is a fenced block whose first line is typed by the person.
    const blocks = [...readme.matchAll(/```\n(you › [\s\S]*?)```/g)].map((match) => match[1] ?? "");
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const expected = comparable(block);
      const inputs = block
        .split("\n")
        .filter((line) => line.startsWith(PROMPT))
        .map((line) => line.slice(PROMPT.length));
      expect(inputs.length).toBeGreaterThan(2);

      const port = await freePort();
      // No DEMO_SETTLE_DELAY_MS: what a person who types these lines into `npm run demo` sees.
      const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}` }, [], {
        defaults: false,
      });
      const chat = () => comparable(demo.output.slice(demo.output.indexOf(PROMPT)));
      await demo.waitFor(/:quit or Ctrl-C to leave\./);
      for (const input of inputs) {
        // Each line is typed once the chat shows what the README shows before it.
        const before = expected.slice(0, expected.indexOf(`${PROMPT}${input}`));
        await waitUntil(
          () => chat().startsWith(before),
          `the transcript before "${input}"`,
          20_000,
        );
        demo.type(input);
      }
      expect((await demo.exited).code).toBe(0);
      expect(chat().replace(/Stopping…[\s\S]*$/, "")).toBe(expected);
      demo.kill();
    }
  });

  it("reads input piped all at once in order: each answer before the next you › line", async () => {
    const port = await freePort();
    const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}` });
    // Typed before the demo has even started: a file piped in.
    for (const line of ["/pay 670000001 5000 delivery", "1", "/history", ":quit"]) demo.type(line);
    expect((await demo.exited).code).toBe(0);

    const chat = demo.output.slice(demo.output.indexOf(PROMPT));
    const order = [
      `${PROMPT}/pay 670000001 5000 delivery`,
      "Confirm this payout",
      `${PROMPT}1`,
      `ⓘ ${en.plain("confirm.sending")}`,
      `(edited) › ${en.plain("state.pending")}`,
      `${PROMPT}/history`,
      "All payouts (page 1 of 1)",
      `${PROMPT}:quit`,
    ].map((text) => chat.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("saves a recipient with /save and pays it by alias", async () => {
    const port = await freePort();
    const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}` });
    for (const line of ["/save jean 670000001", "1", "/pay jean 5000 rent", "1", ":quit"]) {
      demo.type(line);
    }
    expect((await demo.exited).code).toBe(0);
    const chat = demo.output.slice(demo.output.indexOf(PROMPT));
    const order = [
      `${PROMPT}/save jean 670000001`,
      "Save this recipient?",
      "Saved: jean is Jean-Paul Mbarga",
      `${PROMPT}/pay jean 5000 rent`,
      "To: Jean-Paul Mbarga (saved as jean)",
      `(edited) › ${en.plain("state.pending")}`,
    ].map((text) => chat.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("runs a schedule made for the next minutes at once after :later, and shows its Paid notice", async () => {
    const port = await freePort();
    const { demo } = startDemo({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      TIME_ZONE: "Africa/Douala",
    });
    await demo.waitFor(/:quit or Ctrl-C to leave\./);
    const success = scripted("success");
    const paid = en.plain("notice.paid", { amount: formatAmount(5000, "en"), name: success.name });
    demo.type(`/save jean ${success.national}`);
    await demo.waitFor(/Save this recipient\?[\s\S]*\[1\] 💾 Save/);
    demo.type("1");
    await demo.waitFor(/Saved: jean is Jean-Paul Mbarga/);
    demo.type("/pay jean 5000 rent");
    await demo.waitFor(/To: Jean-Paul Mbarga \(saved as jean\)[\s\S]*\[1\] ✅ Confirm/);
    demo.type("1");
    await demo.waitFor(new RegExp(`bot #\\d+ › ${escapeRegExp(paid)}`));

    // Two minutes ahead on the bot's clock, to the minute: one to two minutes from now.
    const at = new Date(Date.now() + 2 * 60_000);
    const part = (type: Intl.DateTimeFormatPartTypes) =>
      new Intl.DateTimeFormat("en-GB", {
        timeZone: "Africa/Douala",
        day: "2-digit",
        month: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      })
        .formatToParts(at)
        .find((p) => p.type === type)?.value;
    const when = `${part("day")}/${part("month")} ${part("hour")}:${part("minute")}`;
    // Another amount than the /pay's: the same one would be held by the duplicate rule.
    demo.type(`/schedule ${when} jean 2500 rent`);
    await demo.waitFor(/Confirm this scheduled payout[\s\S]*Runs once:[\s\S]*\[1\] ✅ Confirm/);
    demo.type("1");
    const [, scheduleId = ""] = await demo.waitFor(/🗓 Schedule ([\w-]+): ✅ Active/);
    // Nothing is due yet: the run waits for its time.
    expect(demo.output).not.toContain("🗓 Scheduled payout (");

    demo.type(":later 2");
    await demo.waitFor(
      /\(demo\) The bot's clock is now [^\n]*\(Africa\/Douala\), 2 min ahead of this machine's/,
    );
    const paidRun = en.plain("notice.paid", {
      amount: formatAmount(2500, "en"),
      name: success.name,
    });
    const [notice = ""] = await demo.waitFor(
      new RegExp(
        `bot #\\d+ › ${escapeRegExp(paidRun)}\n[^›]*🗓 Scheduled payout \\(${escapeRegExp(scheduleId)}\\)`,
      ),
    );
    expect(notice).toContain("Payment id: ");
    demo.type(":later 0");
    await demo.waitFor(/\(demo\) Usage: :later \[MINUTES\]/);
    demo.type(":quit");
    expect((await demo.exited).code).toBe(0);
    // One Paid for the payout by alias, one for the schedule's one run: nothing sent twice.
    expect(demo.output.split(paid).length - 1).toBe(1);
    expect(demo.output.split(paidRun).length - 1).toBe(1);
  });

  it("asks the PIN from 500,000 FCFA: 🔐 prints the Mini App's loopback address, :pin types it there, the approver's PIN too, then Paid", async () => {
    const port = await freePort();
    const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}` });
    await demo.waitFor(/PIN: +500,000 FCFA or more is confirmed with a PIN in the Mini App/);
    await demo.waitFor(/:quit or Ctrl-C to leave\./);
    const success = scripted("success");
    demo.type(`/pay ${success.national} 600000 truck`);
    await demo.waitFor(/\[1\] 🔐 Confirm with PIN {2}\[2\] ✖️ Cancel/);
    demo.type("1");
    const [, link = ""] = await demo.waitFor(
      /This button opens the Mini App as Demo; open in a browser:\n(\S+)\n/,
    );
    const url = new URL(link);
    expect(url.protocol).toBe("http:");
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.searchParams.get("step_up")).toMatch(/^confirm\.[\w-]+$/);
    expect(new URLSearchParams(url.hash.slice(1)).get("tgWebAppData")).toContain("hash=");
    // The address opens: the bot serves the page there.
    const page = await fetch(new URL(url.pathname + url.search, url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");

    demo.type(":pin 48291");
    await demo.waitFor(/\(demo\) Usage: :pin PIN, six digits/);
    demo.type(":pin 482913");
    await demo.waitFor(/\(demo\) Your PIN is set/);
    await demo.waitFor(/\(edited\) › 🕒 Waiting for approval/);
    await demo.waitFor(/\(demo\) The Mini App took the PIN: approval_requested\./);

    demo.type(":role approver");
    await demo.waitFor(
      /Approval needed: a payout[\s\S]*\[1\] 🔐 Approve with PIN {2}\[2\] 🚫 Reject/,
    );
    demo.type("1");
    await demo.waitFor(
      /This button opens the Mini App as Ama; open in a browser:\n\S+step_up=approve\./,
    );
    demo.type(":pin 135790");
    await demo.waitFor(/\(demo\) Your PIN is set/);
    await demo.waitFor(/\(demo\) The Mini App took the PIN: pending\./);

    demo.type(":role admin");
    const paid = en.plain("notice.paid", {
      amount: formatAmount(600_000, "en"),
      name: success.name,
    });
    await demo.waitFor(
      new RegExp(`✅ Approved by Ama: 600,000 FCFA[\\s\\S]*${escapeRegExp(paid)}`),
    );
    demo.type(":quit");
    expect((await demo.exited).code).toBe(0);
  });

  it("saves an /export where it says, and shows an alert when :suspend stops MTN payouts", async () => {
    const port = await freePort();
    const filesDir = mkdtempSync(join(tmpdir(), "demo-files-"));
    try {
      const { demo } = startDemo({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        DEMO_FILES_DIR: filesDir,
        AVAILABILITY_CHECK_SECONDS: "1",
      });
      await demo.waitFor(/:quit or Ctrl-C to leave\./);
      const success = scripted("success");
      demo.type(`/pay ${success.national} 5000 =SUM(A1:A9)`);
      await demo.waitFor(/\[1\] ✅ Confirm/);
      demo.type("1");
      const paid = en.plain("notice.paid", {
        amount: formatAmount(5000, "en"),
        name: success.name,
      });
      await demo.waitFor(new RegExp(escapeRegExp(paid)));

      demo.type("/export");
      const [, path = ""] = await demo.waitFor(/\(demo\) Saved the file as (\S+\.csv)/);
      expect(path.startsWith(filesDir)).toBe(true);
      const csv = readFileSync(path, "utf8");
      expect(csv.startsWith("\uFEFFcreated,kind,initiator")).toBe(true);
      expect(csv).toContain(`,237${success.national},mtn,5000,50,success,`);
      expect(csv).toContain(",'=SUM(A1:A9),");

      demo.type(":suspend mtn disbursement");
      await demo.waitFor(/\(demo\) The sandbox now says mtn disbursement is SUSPENDED/);
      await demo.waitFor(/bot #\d+ › ⛔ MTN MoMo payouts are down \(Suspended\) since /);
      demo.type(":quit");
      expect((await demo.exited).code).toBe(0);
      // The file is the person's: kept after the demo.
      expect(existsSync(path)).toBe(true);
    } finally {
      rmSync(filesDir, { recursive: true, force: true });
    }
  });

  it("sends examples/payroll.csv with :file: the preview skips what it should, Confirm pays the rest, files saved", async () => {
    const port = await freePort();
    const filesDir = mkdtempSync(join(tmpdir(), "demo-files-"));
    try {
      const { demo } = startDemo({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        DEMO_FILES_DIR: filesDir,
      });
      await demo.waitFor(/:quit or Ctrl-C to leave\./);
      demo.type(":help");
      await demo.waitFor(/:file PATH \[CAPTION\] +send a file as a document/);

      demo.type(":file examples/payroll.csv June payroll");
      await demo.waitFor(
        /\(demo\) Sending payroll\.csv \(\d+ bytes\) with the caption "June payroll"\./,
      );
      // The preview file comes first, then the message that presents it.
      const [, previewPath = ""] = await demo.waitFor(
        /\(demo\) Saved the file as (\S+-preview\.csv)/,
      );
      expect(previewPath.startsWith(filesDir)).toBe(true);
      expect(readFileSync(previewPath, "utf8")).toContain("Jean-Paul Mbarga");
      const [preview = ""] = await demo.waitFor(/is checked\.[\s\S]*\[1\] ✅ Confirm batch/);
      expect(preview).toContain("To pay: 3 rows, 16,500 FCFA in all.");
      expect(preview).toContain("Skipped: 3 rows.");
      expect(preview).toContain("row 5: same number and amount as row 2");
      expect(preview).toContain("row 6: registered name is Sandrine Abega, not Marie Atangana");
      expect(preview).toContain("row 7: bad number");

      demo.type("1");
      const [, resultsPath = ""] = await demo.waitFor(
        /\(demo\) Saved the file as (\S+-results\.csv)/,
      );
      expect(readFileSync(resultsPath, "utf8")).toContain(",June wages,paid,");
      await demo.waitFor(/is finished\.\n.*Paid: 3 rows, 16,500 FCFA, fees 165 FCFA\./);

      demo.type(":file examples/no-such-file.csv");
      await demo.waitFor(/\(demo\) Cannot read \S+no-such-file\.csv \(ENOENT\)\./);
      demo.type(":quit");
      expect((await demo.exited).code).toBe(0);
    } finally {
      rmSync(filesDir, { recursive: true, force: true });
    }
  });

  it("shows approval: a payer's payout over the threshold waits, and the approver approves it", async () => {
    const port = await freePort();
    const { demo } = startDemo({ REDIS_URL: `redis://127.0.0.1:${port}` }, ["--role", "payer"]);
    await demo.waitFor(/Approval: 100,000 FCFA or more waits for a second person/);
    const success = scripted("success");

    demo.type(`/pay ${success.national} 250000 rent`);
    await demo.waitFor(/a second person approves[\s\S]*\[1\] ✅ Confirm/);
    demo.type("1");
    await demo.waitFor(/🕒 Waiting for approval[\s\S]*Waiting for Demo, Ama to approve it\./);

    demo.type(":role approver");
    await demo.waitFor(/You are now Ama, an approver/);
    // The card that reached Ama while the terminal was Paul's.
    await demo.waitFor(
      /Approval needed: a payout[\s\S]*Asked by Paul[\s\S]*\[1\] ✅ Approve {2}\[2\] 🚫 Reject/,
    );
    demo.type("/approvals");
    await demo.waitFor(
      /1 waiting for your approval, oldest first:\n[\s\S]*Approval needed[\s\S]*\[1\] ✅ Approve/,
    );
    demo.type("1");
    await demo.waitFor(/ⓘ Approved\. Sending…/);
    await demo.waitFor(/✅ Approved by Ama on [^\n]*\n\s*Now: ⏳ Pending/);

    demo.type(":role payer");
    await demo.waitFor(/You are now Paul, a payer/);
    const paid = en.plain("notice.paid", {
      amount: formatAmount(250_000, "en"),
      name: success.name,
    });
    await demo.waitFor(
      new RegExp(`✅ Approved by Ama: 250,000 FCFA[\\s\\S]*${escapeRegExp(paid)}`),
    );

    demo.type(":quit");
    expect((await demo.exited).code).toBe(0);
  });

  it("refuses an unknown role with exit code 2 and says which roles exist", async () => {
    const { demo } = startDemo({}, ["--role", "boss"]);
    const exit = await demo.exited;
    expect(exit.code).toBe(2);
    expect(demo.stderr).toContain(
      'role "boss": must be one of admin, approver, payer, viewer, stranger',
    );
  });
});
