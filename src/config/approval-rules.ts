/**
 * APPROVAL_RULES: `FROM:N` or `FROM:N(role,role)` bands separated by `;`, from the
 * smallest amount up (see model/approval-rules.ts). Every bad band is reported at once,
 * each message naming the band as it was written.
 */
import type { ApprovalBand } from "../model/approval-rules.js";
import { MAX_AMOUNT_XAF } from "../model/money.js";
import { isRole, type Role } from "../model/roles.js";
import { DECIDING_ROLES } from "../payouts/policy.js";

export type ParsedApprovalRules = { bands: ApprovalBand[] } | { problems: string[] };

const BAND = /^([^:()]*):([^:()]*)(?:\(([^()]*)\))?$/;
const EXAMPLE = "e.g. 100000:1; 1000000:2(approver,admin)";

/** The bands of `text`, or every problem found in it. */
export function parseApprovalRules(text: string): ParsedApprovalRules {
  const parts = text
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0) return { problems: [`must name at least one band, ${EXAMPLE}`] };
  const problems: string[] = [];
  const bands: ApprovalBand[] = [];
  let previous: number | undefined;
  for (const part of parts) {
    const band = parseBand(part);
    if (typeof band === "string") {
      problems.push(`band "${part}": ${band}`);
      continue;
    }
    if (previous !== undefined && band.fromXaf <= previous) {
      problems.push(
        `band "${part}": bands must go from the smallest amount up (after ${previous})`,
      );
    }
    previous = band.fromXaf;
    bands.push(band);
  }
  return problems.length > 0 ? { problems } : { bands };
}

/** The approval rule APPROVAL_THRESHOLD_XAF=X stands for: X:1, today's deciders. */
export function singleApproverBand(fromXaf: number): ApprovalBand {
  return { fromXaf, signatures: 1, roles: [...DECIDING_ROLES] };
}

function parseBand(part: string): ApprovalBand | string {
  const match = BAND.exec(part.replace(/\s+/g, ""));
  if (!match) return "must be FROM:N or FROM:N(role,role), e.g. 100000:1";
  const [, fromText = "", countText = "", rolesText] = match;
  const fromXaf = Number(fromText);
  if (fromText === "" || !Number.isInteger(fromXaf) || fromXaf < 1 || fromXaf > MAX_AMOUNT_XAF) {
    return `FROM must be a whole number from 1 to ${MAX_AMOUNT_XAF}`;
  }
  const signatures = Number(countText);
  if (signatures !== 1 && signatures !== 2 && signatures !== 3) {
    return "N (signatures) must be 1, 2 or 3";
  }
  const roles = rolesText === undefined ? [...DECIDING_ROLES] : parseRoles(rolesText);
  if (typeof roles === "string") return roles;
  return { fromXaf, signatures, roles };
}

function parseRoles(text: string): Role[] | string {
  const names = text.split(",").filter((name) => name !== "");
  if (names.length === 0) return "name at least one role in the brackets, or none at all";
  const roles: Role[] = [];
  for (const name of names) {
    if (!isRole(name) || !DECIDING_ROLES.includes(name)) {
      return `role "${name}" may not approve; use ${[...DECIDING_ROLES].reverse().join(" or ")}`;
    }
    if (roles.includes(name)) return `role "${name}" is named twice`;
    roles.push(name);
  }
  // One order whatever the text's: the order of ROLES.
  return [...DECIDING_ROLES].filter((role) => roles.includes(role));
}
