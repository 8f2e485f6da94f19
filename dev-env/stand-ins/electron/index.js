/**
 * A stand-in for Electron's main-process module, so the built main bundle (.vite/build/main.js) can
 * run under plain Node in tests where the Electron binary cannot be downloaded. It records what the
 * app asks of Electron and is driven over stdin/stdout, one JSON object a line:
 *   → {"op":"report"}                                   ← what the app set up (windows, CSP, IPC channels…)
 *   → {"op":"invoke","channel":C,"input":I,"sender":S}  ← the IPC handler's answer; S is "window" (our
 *                                                          window's main frame) or "stranger"
 *   → {"op":"navigate","url":U}                         ← whether each navigation guard refused it
 *   → {"op":"notifications"}                            ← every Notification shown: its title and body
 *   → {"op":"clickNotification","index":N}              ← clicks the Nth; then what the window was asked
 *                                                          (shown, focused) and the messages sent to it
 *   → {"op":"utilityProcesses"}                         ← each utility process started: its module and pid, and
 *                                                          whether it has exited
 *   → {"op":"quit"}                                     ← runs before-quit, then exits
 * Answers are printed as `standin: {json}`; `standin: ready` once the app has opened its window. An
 * error box the app shows is printed at once as `standin: {"errorBox":{"title":…,"content":…}}`.
 * `utilityProcess.fork` runs the module with Node's fork (the child talks over Node's IPC channel).
 * The app's data lives under BATON_STANDIN_HOME (userData, home).
 */
import { Buffer } from 'node:buffer';
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { clearInterval, setInterval } from 'node:timers';

const home = process.env.BATON_STANDIN_HOME ?? process.cwd();
const recorded = {
  sandbox: false,
  singleInstance: false,
  windows: [],
  csp: [],
  permissionAnswers: [],
  handlers: new Map(),
  ipcOn: [],
  notifications: [],
};
const say = (value) => process.stdout.write(`standin: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);

class App extends EventEmitter {
  enableSandbox() {
    recorded.sandbox = true;
  }
  requestSingleInstanceLock() {
    recorded.singleInstance = true;
    return true;
  }
  /** As in Electron: a before-quit listener may prevent the quit (and quit again later). */
  quit() {
    let prevented = false;
    this.emit('before-quit', {
      preventDefault: () => {
        prevented = true;
      },
    });
    if (!prevented) setTimeout(() => process.exit(0), 10);
  }
  whenReady() {
    return Promise.resolve();
  }
  getPath(name) {
    return name === 'home' ? join(home, 'home') : join(home, name);
  }
  getVersion() {
    return '0.0.0-standin';
  }
  getName() {
    return 'Baton';
  }
  isReady() {
    return true;
  }
}
export const app = new App();

class WebContents extends EventEmitter {
  constructor() {
    super();
    this.mainFrame = { url: 'about:blank' };
    this.openHandler = null;
    this.sent = [];
    this.messages = [];
  }
  setWindowOpenHandler(handler) {
    this.openHandler = handler;
  }
  send(channel, payload) {
    this.sent.push(channel);
    this.messages.push({ channel, payload });
  }
  isDestroyed() {
    return false;
  }
}

export class BrowserWindow extends EventEmitter {
  static all = [];
  static getAllWindows() {
    return BrowserWindow.all;
  }
  constructor(options) {
    super();
    this.options = options;
    this.webContents = new WebContents();
    this.url = null;
    BrowserWindow.all.push(this);
    recorded.windows.push(this);
    // As in Electron: announced while the window is being made, before its creator configures it.
    app.emit('web-contents-created', {}, this.webContents);
  }
  async loadURL(url) {
    this.url = url;
    this.webContents.mainFrame.url = url;
    this.emit('ready-to-show');
  }
  show() {
    this.shown = true;
  }
  focus() {
    this.focused = true;
  }
  restore() {}
  isMinimized() {
    return false;
  }
  isDestroyed() {
    return false;
  }
  getBounds() {
    return { x: 0, y: 0, width: this.options.width, height: this.options.height };
  }
}

export const ipcMain = {
  handle(channel, handler) {
    recorded.handlers.set(channel, handler);
  },
  removeHandler(channel) {
    recorded.handlers.delete(channel);
  },
  on(channel) {
    recorded.ipcOn.push(channel);
  },
};

export const session = {
  defaultSession: {
    webRequest: {
      onHeadersReceived(listener) {
        listener({ responseHeaders: {} }, (answer) => recorded.csp.push(...(answer.responseHeaders['Content-Security-Policy'] ?? [])));
      },
    },
    setPermissionRequestHandler(handler) {
      handler(null, 'media', (allowed) => recorded.permissionAnswers.push(allowed));
    },
    setPermissionCheckHandler(handler) {
      recorded.permissionAnswers.push(handler(null, 'media'));
    },
  },
};

export const shell = { async openExternal() {} };

export const dialog = {
  showErrorBox(title, content) {
    say({ errorBox: { title, content } });
  },
};

const utilityProcesses = [];

/** As Electron's utilityProcess: a Node child with a message channel; here Node's fork of the module. */
export const utilityProcess = {
  fork(modulePath, args = [], options = {}) {
    const child = fork(modulePath, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const handle = new EventEmitter();
    const record = { modulePath, serviceName: options.serviceName ?? null, pid: child.pid, exited: false };
    utilityProcesses.push(record);
    child.on('message', (message) => handle.emit('message', message));
    child.once('exit', (code) => {
      record.exited = true;
      handle.emit('exit', code ?? 0);
    });
    handle.pid = child.pid;
    handle.postMessage = (message) => child.send(message);
    handle.kill = () => child.kill();
    return handle;
  },
};

/** As Electron's: made with a title and body, shown, and told when it is clicked or closed. */
export class Notification extends EventEmitter {
  static isSupported() {
    return true;
  }
  constructor(options) {
    super();
    this.options = options;
    this.shown = false;
  }
  show() {
    this.shown = true;
    recorded.notifications.push(this);
  }
  close() {
    this.emit('close');
  }
}

/** Reversible, clearly-not-secret "encryption", as a keyring-backed safeStorage would offer. */
export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptString: (text) => Buffer.from(`standin:${text}`),
  decryptString: (bytes) =>
    Buffer.from(bytes)
      .toString()
      .replace(/^standin:/, ''),
};

export default { app, BrowserWindow, ipcMain, session, shell, safeStorage, Notification, dialog, utilityProcess };

function report() {
  return {
    sandbox: recorded.sandbox,
    singleInstance: recorded.singleInstance,
    windows: recorded.windows.map((w) => ({ options: w.options, url: w.url })),
    csp: recorded.csp,
    permissionAnswers: recorded.permissionAnswers,
    handlers: [...recorded.handlers.keys()].sort(),
    appEvents: app.eventNames().map(String).sort(),
  };
}

async function invoke({ channel, input, sender }) {
  const handler = recorded.handlers.get(channel);
  if (!handler) return { missing: channel };
  const ours = recorded.windows.at(-1)?.webContents;
  const stranger = new WebContents();
  stranger.mainFrame.url = 'https://example.com/';
  const contents = sender === 'window' ? ours : stranger;
  return handler({ sender: contents, senderFrame: contents.mainFrame }, input);
}

function navigate({ url }) {
  const contents = recorded.windows.at(-1).webContents;
  return contents.listeners('will-navigate').map((listener) => {
    let prevented = false;
    listener(
      {
        preventDefault: () => {
          prevented = true;
        },
      },
      url,
    );
    return prevented;
  });
}

function clickNotification({ index }) {
  const window = recorded.windows.at(-1);
  window.shown = false;
  window.focused = false;
  recorded.notifications[index].emit('click');
  return { shown: window.shown === true, focused: window.focused === true, messages: window.webContents.messages };
}

const ready = setInterval(() => {
  if (recorded.windows.length === 0) return;
  clearInterval(ready);
  say('ready');
}, 20);

createInterface({ input: process.stdin }).on('line', (line) => {
  void (async () => {
    const command = JSON.parse(line);
    if (command.op === 'report') say(report());
    else if (command.op === 'invoke') say(await invoke(command));
    else if (command.op === 'navigate') say(navigate(command));
    else if (command.op === 'notifications') say(recorded.notifications.map((n) => ({ title: n.options.title, body: n.options.body })));
    else if (command.op === 'clickNotification') say(clickNotification(command));
    else if (command.op === 'utilityProcesses') say(utilityProcesses);
    else if (command.op === 'quit') app.quit();
  })().catch((error) => say({ error: String(error) }));
});
