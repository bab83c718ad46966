/**
 * Our own small, typed wrapper of Telegram's Mini App API (`window.Telegram.WebApp`, the
 * object Telegram's `telegram-web-app.js` defines; we load no script from telegram.org: the
 * page's policy is strict and the tests run offline). Everything is feature-detected: in a
 * plain browser (the demo opens the page in one) the object is absent and every call here
 * does nothing, the page keeps its own buttons.
 */
import { applyTheme } from "./launch.js";

interface Inset {
  top?: number;
  bottom?: number;
  left?: number;
  right?: number;
}

interface BottomButton {
  setText(text: string): unknown;
  show(): unknown;
  hide(): unknown;
  enable(): unknown;
  disable(): unknown;
  showProgress(leaveActive?: boolean): unknown;
  hideProgress(): unknown;
  onClick(callback: () => void): unknown;
  offClick(callback: () => void): unknown;
}

interface BackButtonApi {
  show(): unknown;
  hide(): unknown;
  onClick(callback: () => void): unknown;
  offClick(callback: () => void): unknown;
}

/** The part of Telegram's `WebApp` object the page uses. */
export interface WebAppApi {
  version?: string;
  themeParams?: Record<string, string>;
  safeAreaInset?: Inset;
  contentSafeAreaInset?: Inset;
  viewportStableHeight?: number;
  ready(): unknown;
  expand(): unknown;
  isVersionAtLeast?(version: string): boolean;
  onEvent(event: string, callback: () => void): unknown;
  BackButton?: BackButtonApi;
  MainButton?: BottomButton;
  HapticFeedback?: { notificationOccurred(kind: "success" | "error" | "warning"): unknown };
  /** Bot API 8.0: Telegram's own download sheet; the callback says whether it was accepted. */
  downloadFile?(
    params: { url: string; file_name: string },
    callback?: (ok: boolean) => void,
  ): unknown;
}

declare global {
  interface Window {
    Telegram?: { WebApp?: WebAppApi };
  }
}

/** Telegram's object, when the page runs inside Telegram (and it has the basics). */
export function webApp(): WebAppApi | null {
  const api = window.Telegram?.WebApp;
  return api && typeof api.ready === "function" ? api : null;
}

function px(value: number | undefined): string {
  return `${Math.max(0, Math.round(value ?? 0))}px`;
}

/** The device's and Telegram's own insets as CSS variables (`--safe-top`, …). */
function applyInsets(api: WebAppApi): void {
  const root = document.documentElement;
  for (const side of ["top", "bottom", "left", "right"] as const) {
    const total = (api.safeAreaInset?.[side] ?? 0) + (api.contentSafeAreaInset?.[side] ?? 0);
    root.style.setProperty(`--safe-${side}`, px(total));
  }
  if (api.viewportStableHeight !== undefined) {
    root.style.setProperty("--viewport-height", px(api.viewportStableHeight));
  }
}

/** At start: ready and expanded, the theme, viewport and insets followed live. */
export function startTelegram(): void {
  const api = webApp();
  if (!api) return;
  api.ready();
  api.expand();
  document.documentElement.classList.add("in-telegram");
  applyInsets(api);
  api.onEvent("themeChanged", () => applyTheme(api.themeParams ?? {}));
  for (const event of ["viewportChanged", "safeAreaChanged", "contentSafeAreaChanged"]) {
    api.onEvent(event, () => applyInsets(api));
  }
}

let backHandler: (() => void) | null = null;

/**
 * Telegram's Back button for a page below a tab (a payout's detail): shown with `onBack`,
 * hidden with null. Returns whether Telegram shows it (the page then draws no back link).
 */
export function setBack(onBack: (() => void) | null): boolean {
  const back = webApp()?.BackButton;
  if (!back) return false;
  if (backHandler) back.offClick(backHandler);
  backHandler = null;
  if (onBack === null) {
    back.hide();
    return true;
  }
  backHandler = () => onBack();
  back.onClick(backHandler);
  back.show();
  return true;
}

/** The page's one action on Telegram's Main button. */
export interface MainAction {
  /** Shows progress (the button stays, disabled) while the action runs. */
  busy(on: boolean): void;
  hide(): void;
}

let mainHandler: (() => void) | null = null;

/**
 * The page's one action (Confirm with PIN, Approve) on Telegram's Main button, or null
 * outside Telegram (the page then shows its own button).
 */
export function mainAction(text: string, onPress: () => void): MainAction | null {
  const main = webApp()?.MainButton;
  if (!main) return null;
  if (mainHandler) main.offClick(mainHandler);
  mainHandler = () => onPress();
  main.setText(text);
  main.onClick(mainHandler);
  main.enable();
  main.show();
  return {
    busy(on) {
      if (on) {
        main.disable();
        main.showProgress(false);
      } else {
        main.hideProgress();
        main.enable();
      }
    },
    hide() {
      main.hideProgress();
      if (mainHandler) main.offClick(mainHandler);
      mainHandler = null;
      main.hide();
    },
  };
}

/** A success or a refusal felt in the hand (where the device can). */
export function haptic(kind: "success" | "error" | "warning"): void {
  webApp()?.HapticFeedback?.notificationOccurred(kind);
}

/**
 * Whether Telegram can download a file itself (`downloadFile`, Bot API 8.0): some 8.0
 * clients lack the method, so both the version and the method are asked.
 */
export function canDownload(): boolean {
  const api = webApp();
  return (
    api !== null &&
    typeof api.downloadFile === "function" &&
    (api.isVersionAtLeast?.("8.0") ?? false)
  );
}

/** Telegram's download sheet for `url` (absolute, https): whether the person accepted it. */
export function downloadFile(url: string, fileName: string): Promise<boolean> {
  return new Promise((resolve) => {
    const api = webApp();
    if (!api?.downloadFile) {
      resolve(false);
      return;
    }
    api.downloadFile({ url, file_name: fileName }, (ok) => resolve(ok));
  });
}
