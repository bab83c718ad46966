/**
 * The Mini App speaks the bot's French (locales/glossary.md): for each idea, the word the
 * bot uses, in the Mini App's text for that idea, and none of the words the glossary bans
 * anywhere in the Mini App's French.
 */
import { describe, expect, it } from "vitest";
import bot from "../../locales/fr.json" with { type: "json" };
import app from "../../locales/webapp.fr.json" with { type: "json" };

type BotKey = keyof typeof bot;
type AppKey = keyof typeof app;

/** One idea: the word, where the bot says it, where the Mini App must say it. */
const GLOSSARY: Array<{ idea: string; word: RegExp; bot: BotKey[]; app: AppKey[] }> = [
  {
    idea: "approval",
    word: /approbation/i,
    bot: ["state.awaiting_approval", "standing.was_approval"],
    app: ["tab.approvals", "attention.waiting", "approvals.empty"],
  },
  {
    idea: "approve",
    word: /approuv/i,
    bot: ["approve.sending"],
    app: ["approvals.approve", "approvals.approve_label", "detail.approver", "status.waiting"],
  },
  { idea: "approver", word: /^approbateur$/, bot: ["role.approver"], app: ["role.approver"] },
  {
    idea: "pending (at the operator)",
    word: /en cours/i,
    bot: ["state.pending", "payment_status.pending"],
    app: ["status.pending", "standing.pending", "attention.stuck", "approvals.pending"],
  },
  {
    idea: "transaction id (the service's payment id)",
    word: /ID de transaction/,
    bot: ["usage.status"],
    app: ["detail.payment_id", "history.placeholder"],
  },
  { idea: "failed", word: /^échec$/i, bot: ["payment_status.failed"], app: ["status.failed"] },
  {
    idea: "unknown outcome",
    word: /résultat inconnu/i,
    bot: ["state.unknown"],
    app: ["status.unknown"],
  },
  {
    idea: "settled at",
    word: /finalisé le/i,
    bot: ["export.column.settled_at"],
    app: ["detail.settled"],
  },
];

/** Words the glossary rules out, with the reason. */
const BANNED: Array<[RegExp, string]> = [
  [/valid/i, "approval is approbation / approuver / approbateur"],
  [/\brégl[ée]/i, "régler means to pay: settled is finalisé, resolve is régulariser"],
  [/\bréférence\b/i, "a référence is the bot's own id: the service's is the ID de transaction"],
  [/en attente de l’opérateur|en attente chez/i, "pending at the operator is en cours"],
  [/\bconversation\b/i, "the chat is la discussion"],
  [/\bAPI\b/, "the Payment API is le service de paiement"],
];

const strip = (text: string) =>
  text
    .replace(/<[^>]+>/g, "")
    .replace(/^\P{L}+/u, "")
    .trim();

describe("the Mini App's French and the bot's", () => {
  it.each(GLOSSARY)("say $idea with the same word", ({ word, bot: botKeys, app: appKeys }) => {
    for (const key of botKeys) expect(strip(bot[key]), `bot ${key}`).toMatch(word);
    for (const key of appKeys) expect(strip(app[key]), `Mini App ${key}`).toMatch(word);
  });

  it.each(BANNED)("never use %s in the Mini App (%s)", (banned) => {
    const found = Object.entries(app).filter(([, text]) => banned.test(text));
    expect(found).toEqual([]);
  });
});
