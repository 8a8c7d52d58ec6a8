/** MQTT topic filters matched against topics, as a broker does: `+` one level, `#` the rest. */

/** True when `topic` matches `filter` (`+`: any one level; `#` last: this level and every one below). */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/')
  const t = topic.split('/')
  // A wildcard in the first level never matches a `$SYS/…` topic (MQTT 4.7.2).
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i === f.length - 1
    if (i >= t.length) return false
    if (f[i] !== '+' && f[i] !== t[i]) return false
  }
  return f.length === t.length
}
