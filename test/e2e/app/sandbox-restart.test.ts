/**
 * A sandbox restarted under a running bot, as in the rehearsal of `npm start`: with a new
 * signing key, every answer fails the bot's signature check. The user reads what it is, not
 * "not answering", and the log says so; nothing is paid.
 */
import { generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { plainText } from "../../../src/dev/telegram-emulator/index.js";
import { type SandboxHandle, startSandbox } from "../../../src/sandbox/index.js";
import { sendAndWait } from "../../support/flows.js";
import { type Harness, PAYER_ID, startHarness } from "../../support/harness.js";
import { capturedLogger } from "../../support/logs.js";

const NOT_SIGNED = "The payment service's answers are not signed with the key you configured";

describe("a sandbox restarted with a new key under a running bot", () => {
  let h: Harness | undefined;
  let restarted: SandboxHandle | undefined;

  afterEach(async () => {
    await restarted?.close();
    await h?.close();
    restarted = undefined;
    h = undefined;
  });

  /** The bot started against the sandbox, then the sandbox restarted on its port, new key. */
  async function restartSandbox() {
    const captured = capturedLogger("warn");
    h = await startHarness({ logger: captured.logger });
    const port = Number(new URL(h.sandbox.url).port);
    await h.sandbox.close();
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    restarted = await startSandbox({
      port,
      settleDelayMs: 150,
      rateLimitPerMinute: 0,
      privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    });
    return { harness: h, sandbox: restarted, lines: captured.lines };
  }

  it("says the answers are not signed with the configured key, logs it as that, pays nothing", async () => {
    const { harness, sandbox, lines } = await restartSandbox();
    const payer = harness.emulator.user({ id: PAYER_ID, languageCode: "en" });

    const pay = plainText(await sendAndWait(harness.emulator, payer, "/pay 670000001 5000"));
    const whois = plainText(await sendAndWait(harness.emulator, payer, "/whois 670000001"));

    expect(pay).toContain(NOT_SIGNED);
    expect(pay).not.toContain("not answering");
    expect(whois).toContain(NOT_SIGNED);
    // /pay stopped at its availability check, /whois at the name look-up: both answers refused.
    expect(sandbox.countRequests({ method: "GET", path: "/availability" })).toBeGreaterThan(0);
    expect(sandbox.countRequests({ method: "GET", path: "/data/userinfo/237670000001" })).toBe(1);
    expect(sandbox.countRequests({ method: "POST", path: "/disburse" })).toBe(0);
    const logged = lines.filter((line) => line.code === "PAYMENT_BAD_SIGNATURE");
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged[0]?.msg).toBe(
      "payment api answer is not signed with the configured key (PAYMENT_SIGNATURE_PUBLIC_KEY)",
    );
  });

  it("says it in French too", async () => {
    const { harness } = await restartSandbox();
    const payer = harness.emulator.user({ id: PAYER_ID, languageCode: "fr" });

    const whois = plainText(await sendAndWait(harness.emulator, payer, "/whois 670000001"));

    expect(whois).toContain("ne sont pas signées avec la clé configurée");
  });
});
