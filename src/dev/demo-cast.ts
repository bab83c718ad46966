/**
 * The people the terminal demo plays: one per role, each with a Telegram id and a chat of
 * their own. A payout at or over the approval threshold must be approved by someone other
 * than the person who asked for it, so the demo's payer and approver are two people, and
 * `:role` switches from one to the other (as two colleagues would, on two phones).
 */
import type { Locale } from "../model/locale.js";
import { DEMO_USER, type DemoRole } from "./demo-options.js";
import type { EmulatedUser, TelegramEmulator } from "./telegram-emulator/index.js";

export interface DemoPerson {
  readonly id: number;
  readonly firstName: string;
  readonly username: string;
}

/** The admin is the demo's first person, `DEMO_USER`; the stranger is on no staff list. */
export const DEMO_PEOPLE: Readonly<Record<DemoRole, DemoPerson>> = {
  admin: DEMO_USER,
  approver: { id: 424243, firstName: "Ama", username: "demo_approver" },
  payer: { id: 424244, firstName: "Paul", username: "demo_payer" },
  viewer: { id: 424245, firstName: "Vera", username: "demo_viewer" },
  stranger: { id: 424246, firstName: "Sam", username: "demo_stranger" },
};

/** `STAFF` for the demo's bot: every person but the stranger, with their role. */
export function demoStaff(): string {
  return (["admin", "approver", "payer", "viewer"] as const)
    .map((role) => `${DEMO_PEOPLE[role].id}:${role}`)
    .join(",");
}

/** Who is at the terminal now, and who they can become. */
export class DemoCast {
  readonly #emulator: TelegramEmulator;
  readonly #languageCode: Locale;
  #role: DemoRole;

  constructor(emulator: TelegramEmulator, languageCode: Locale, role: DemoRole) {
    this.#emulator = emulator;
    this.#languageCode = languageCode;
    this.#role = role;
    // Everyone has started the bot already, as colleagues who use it would have: an
    // approval card can reach the approver before the terminal becomes them.
    for (const person of Object.values(DEMO_PEOPLE)) this.#userOf(person);
  }

  get role(): DemoRole {
    return this.#role;
  }

  get person(): DemoPerson {
    return DEMO_PEOPLE[this.#role];
  }

  /** Who is at the terminal, in a sentence. */
  whoAmI(): string {
    const { firstName, id } = this.person;
    return `You are ${firstName} (Telegram id ${id}), ${describe(this.#role)}.`;
  }

  /** The person with the current role, as the emulator's user. */
  get user(): EmulatedUser {
    return this.#userOf(this.person);
  }

  #userOf({ id, firstName, username }: DemoPerson): EmulatedUser {
    return this.#emulator.user({ id, firstName, username, languageCode: this.#languageCode });
  }

  /** Becomes the person with `role`; answers them and a line saying who they are. */
  become(role: DemoRole): { user: EmulatedUser; note: string } {
    this.#role = role;
    const { firstName, id } = this.person;
    return {
      user: this.user,
      note: `You are now ${firstName}, ${describe(role)} (Telegram id ${id}), in ${firstName}'s own chat with the bot.`,
    };
  }
}

/** The profiles the bot would have saved: the staff wrote to it before (names in lists). */
export function demoProfiles(): Array<{ id: number; firstName: string; username: string }> {
  return (["admin", "approver", "payer", "viewer"] as const).map((role) => DEMO_PEOPLE[role]);
}

/** "an admin", "a payer"… or, for the stranger, what they are to the bot. */
function describe(role: DemoRole): string {
  if (role === "stranger") return "someone the bot does not know";
  return `${role === "admin" || role === "approver" ? "an" : "a"} ${role}`;
}
