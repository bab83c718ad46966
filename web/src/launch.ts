/**
 * What Telegram hands a Mini App when it opens it: the launch parameters in the URL's
 * fragment (`#tgWebAppData=…&tgWebAppThemeParams=…`). Read here directly, so the page
 * needs no script from telegram.org (and works offline with the local emulator).
 */
export interface Launch {
  /** The raw, signed init data; "" when the page was opened outside Telegram. */
  initData: string;
  theme: Record<string, string>;
  /** The Telegram app's language, before the server says which one the person chose. */
  languageCode: string | undefined;
}

function fragmentParams(): URLSearchParams {
  const hash = location.hash.startsWith("#") ? location.hash.slice(1) : location.hash;
  return new URLSearchParams(hash);
}

export function readLaunch(): Launch {
  const params = fragmentParams();
  const initData = params.get("tgWebAppData") ?? "";
  let theme: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(params.get("tgWebAppThemeParams") ?? "{}");
    if (parsed && typeof parsed === "object") {
      theme = Object.fromEntries(
        Object.entries(parsed).filter(
          (entry): entry is [string, string] =>
            typeof entry[1] === "string" && /^#[0-9a-fA-F]{3,8}$/.test(entry[1]),
        ),
      );
    }
  } catch {
    theme = {};
  }
  let languageCode: string | undefined;
  try {
    const user: unknown = JSON.parse(new URLSearchParams(initData).get("user") ?? "null");
    if (user && typeof user === "object" && "language_code" in user) {
      languageCode = String(user.language_code);
    }
  } catch {
    languageCode = undefined;
  }
  return { initData, theme, languageCode };
}

function luminance(hex: string): number {
  const full = hex.length === 4 ? hex.replace(/^#(.)(.)(.)$/, "#$1$1$2$2$3$3") : hex;
  const value = Number.parseInt(full.slice(1, 7), 16);
  const r = (value >> 16) & 255;
  const g = (value >> 8) & 255;
  const b = value & 255;
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

/**
 * Telegram's colours as CSS variables (`--tg-theme-bg-color`, …, as Telegram's own script
 * names them), and `dark` on the root when the background is dark. Set through the CSSOM,
 * which the page's Content-Security-Policy allows (no inline style).
 */
export function applyTheme(theme: Record<string, string>): void {
  const root = document.documentElement;
  for (const [name, value] of Object.entries(theme)) {
    root.style.setProperty(`--tg-theme-${name.replace(/_/g, "-")}`, value);
  }
  const bg = theme.bg_color;
  if (bg !== undefined) root.classList.toggle("dark", luminance(bg) < 0.5);
  else root.classList.toggle("dark", matchMedia("(prefers-color-scheme: dark)").matches);
}
