/**
 * The digest as a picture: the last seven days' paid volume by operator, drawn as SVG and
 * rendered to PNG on the server by resvg (a Rust renderer shipped as a prebuilt binary,
 * no browser, no canvas). Texts come from the locales in the reader's language; every
 * text is XML-escaped before it goes into the SVG. Fonts are the system's (resvg reads
 * them once): without any, bars and the legend's colours still draw, the words do not.
 */
import type { Translate } from "../../i18n.js";
import { formatAmount } from "../../model/money.js";
import { TELECOM_OPERATORS, type TelecomOperator } from "../../model/payment-terms.js";
import type { WeekVolume } from "../../payouts/loops/digest-week.js";
import { operatorName } from "./common.js";

/** The PNG's size in pixels (Telegram shows photos up to 1280 px wide; this reads on a phone). */
export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 450;

const COLOURS: Record<TelecomOperator, string> = { mtn: "#f2b705", orange: "#ff6600" };
const PLOT = { left: 130, right: 20, top: 80, bottom: 40 };
const FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif";

function xml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** A round step for the value axis: 1, 2 or 5 times a power of ten, about four lines. */
function axisStep(max: number): number {
  if (max <= 0) return 1000;
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough);
  return step ?? power * 10;
}

/** "Mon 25", "lun. 25": a short day label in the reader's language. */
function dayLabel(day: string, locale: Translate["locale"]): string {
  const [year = 1970, month = 1, date = 1] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(locale === "fr" ? "fr-FR" : "en-GB", {
    timeZone: "UTC",
    weekday: "short",
    day: "numeric",
  }).format(new Date(Date.UTC(year, month - 1, date, 12)));
}

/** The chart as SVG source (exported for tests: the texts and bars can be read in it). */
export function digestChartSvg(t: Translate, week: WeekVolume): string {
  const plotWidth = CHART_WIDTH - PLOT.left - PLOT.right;
  const plotHeight = CHART_HEIGHT - PLOT.top - PLOT.bottom;
  const max = Math.max(0, ...TELECOM_OPERATORS.flatMap((operator) => week.byOperator[operator]));
  const step = axisStep(max);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const y = (value: number) => PLOT.top + plotHeight - (value / top) * plotHeight;
  const parts: string[] = [
    `<rect width="${CHART_WIDTH}" height="${CHART_HEIGHT}" fill="#ffffff"/>`,
    `<text x="${PLOT.left}" y="32" font-size="22" font-weight="bold" fill="#1f2933">${xml(t.plain("digest.chart_title"))}</text>`,
  ];
  for (let value = 0; value <= top; value += step) {
    parts.push(
      `<line x1="${PLOT.left}" x2="${CHART_WIDTH - PLOT.right}" y1="${y(value)}" y2="${y(value)}" stroke="#d9dee3" stroke-width="1"/>`,
      `<text x="${PLOT.left - 8}" y="${y(value) + 5}" font-size="14" text-anchor="end" fill="#52606d">${xml(formatAmount(value, t.locale))}</text>`,
    );
  }
  const slot = plotWidth / week.days.length;
  const barWidth = (slot * 0.7) / TELECOM_OPERATORS.length;
  week.days.forEach((day, at) => {
    const slotX = PLOT.left + at * slot;
    TELECOM_OPERATORS.forEach((operator, which) => {
      const value = week.byOperator[operator][at] ?? 0;
      if (value <= 0) return;
      const x = slotX + slot * 0.15 + which * barWidth;
      parts.push(
        `<rect x="${x}" y="${y(value)}" width="${barWidth}" height="${y(0) - y(value)}" fill="${COLOURS[operator]}"><title>${xml(`${operatorName(operator)} ${formatAmount(value, t.locale)}`)}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${slotX + slot / 2}" y="${CHART_HEIGHT - PLOT.bottom + 24}" font-size="14" text-anchor="middle" fill="#52606d">${xml(dayLabel(day, t.locale))}</text>`,
    );
  });
  TELECOM_OPERATORS.forEach((operator, which) => {
    const x = PLOT.left + which * 190;
    const legendY = 60;
    parts.push(
      `<rect x="${x}" y="${legendY - 12}" width="14" height="14" fill="${COLOURS[operator]}"/>`,
      `<text x="${x + 20}" y="${legendY}" font-size="14" fill="#1f2933">${xml(operatorName(operator))}</text>`,
    );
  });
  if (max === 0) {
    parts.push(
      `<text x="${PLOT.left + plotWidth / 2}" y="${PLOT.top + plotHeight / 2}" font-size="18" text-anchor="middle" fill="#52606d">${xml(t.plain("digest.chart_empty"))}</text>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" font-family="${FONT}">${parts.join("")}</svg>`;
}

/**
 * The chart as PNG bytes, `CHART_WIDTH` × `CHART_HEIGHT`. The renderer is loaded at the
 * first chart (`import()`), once a week, not at start.
 */
export async function digestChartPng(t: Translate, week: WeekVolume): Promise<Buffer> {
  const { Resvg } = await import("@resvg/resvg-js");
  const resvg = new Resvg(digestChartSvg(t, week), {
    fitTo: { mode: "original" },
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  });
  return resvg.render().asPng();
}

/**
 * The photo's caption: the week's total by operator, in words, for those who do not see
 * the picture (screen readers read captions).
 */
export function digestChartCaption(t: Translate, week: WeekVolume): string {
  const sum = (operator: TelecomOperator) =>
    week.byOperator[operator].reduce((total, value) => total + value, 0);
  return t("digest.chart_caption", {
    mtn: formatAmount(sum("mtn"), t.locale),
    orange: formatAmount(sum("orange"), t.locale),
  });
}
