/** A stand-in for `window.Telegram.WebApp` in the browser tests. */
/**
 * Telegram's object as its script defines it (Bot API 8.0), every call recorded in
 * `window.__tgCalls`, for a test to inject before the page's script. `downloadFile`, which
 * some 8.0 clients lack, is there only when asked for.
 */
export function telegramStub(options: { downloadFile?: boolean } = {}): string {
  const download = options.downloadFile
    ? `downloadFile: (params, callback) => { calls.push(["downloadFile", params]); if (callback) callback(true); },`
    : "";
  return `(() => {
  const calls = [];
  const handlers = { main: [], back: [], events: {} };
  const record = (name) => (...args) => { calls.push([name, ...args]); };
  window.__tgCalls = calls;
  window.__tg = {
    pressMain: () => handlers.main.slice().forEach((f) => f()),
    pressBack: () => handlers.back.slice().forEach((f) => f()),
    fire: (event) => (handlers.events[event] || []).forEach((f) => f()),
  };
  window.Telegram = { WebApp: {
    version: "8.0",
    themeParams: {},
    safeAreaInset: { top: 0, bottom: 34, left: 0, right: 0 },
    contentSafeAreaInset: { top: 0, bottom: 0, left: 0, right: 0 },
    ready: record("ready"),
    expand: record("expand"),
    isVersionAtLeast: (v) => Number(v) <= 8,
    onEvent: (event, f) => { calls.push(["onEvent", event]); (handlers.events[event] ||= []).push(f); },
    BackButton: {
      show: record("BackButton.show"),
      hide: record("BackButton.hide"),
      onClick: (f) => { calls.push(["BackButton.onClick"]); handlers.back.push(f); },
      offClick: (f) => { handlers.back = handlers.back.filter((g) => g !== f); },
    },
    MainButton: {
      setText: record("MainButton.setText"),
      show: record("MainButton.show"),
      hide: record("MainButton.hide"),
      enable: record("MainButton.enable"),
      disable: record("MainButton.disable"),
      showProgress: record("MainButton.showProgress"),
      hideProgress: record("MainButton.hideProgress"),
      onClick: (f) => { calls.push(["MainButton.onClick"]); handlers.main.push(f); },
      offClick: (f) => { handlers.main = handlers.main.filter((g) => g !== f); },
    },
    HapticFeedback: { notificationOccurred: record("HapticFeedback.notificationOccurred") },
    ${download}
  } };
})();`;
}
