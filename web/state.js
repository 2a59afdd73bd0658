// State that outlives one screen: the signed-in user and the compare tray (the images picked
// for comparison while browsing; the compare page itself keeps its ids in the URL).

const TRAY_KEY = 'imaxe.compare';
export const MAX_COMPARE = 4;

export const user = { me: null };

/** The teams the user belongs to, or [] when /v1/me is not available. */
export const teams = () => user.me?.teams || [];

const listeners = new Set();

function read() {
  try {
    const v = JSON.parse(sessionStorage.getItem(TRAY_KEY) || '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

function write(items) {
  sessionStorage.setItem(TRAY_KEY, JSON.stringify(items));
  listeners.forEach((fn) => fn(items));
}

export const tray = {
  items: read,
  has: (id) => read().some((x) => String(x.id) === String(id)),
  /** Adds an image ({id, family, version}); false when the tray is full. */
  add(img) {
    const items = read();
    if (items.some((x) => String(x.id) === String(img.id))) return true;
    if (items.length >= MAX_COMPARE) return false;
    write([...items, { id: img.id, family: img.family, version: img.version }]);
    return true;
  },
  remove(id) {
    write(read().filter((x) => String(x.id) !== String(id)));
  },
  clear() {
    write([]);
  },
  subscribe(fn) {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
};
