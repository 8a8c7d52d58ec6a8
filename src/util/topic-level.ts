/**
 * Which strings may be a topic level or a whole topic of a publish. Ids from radios, files and
 * other clients become topic levels (fleet beacon topics, gateway beacon topics, discovery
 * object ids); one the broker refuses closes the connection. A string check with no MQTT in it,
 * so every layer that names topics (mqtt/, fleet/, the site's beacon names) shares it.
 */

/** Longest id accepted as one topic level (beacon ids), in UTF-16 code units. */
export const MAX_TOPIC_LEVEL = 256

/** Longest topic accepted for a publish, in UTF-8 bytes: the MQTT limit. */
const MAX_TOPIC_BYTES = 65_535

/**
 * The code point at `s[i]` when it may be inside a topic, else -1. A C0 or C1 control
 * (U+0000–U+001F, U+007F–U+009F) or a non-character (U+FDD0–U+FDEF, U+xxFFFE/U+xxFFFF) makes
 * Mosquitto refuse the packet and close the connection (mosquitto_validate_utf8; checked against
 * Mosquitto 2.0.11), so one such id would cut every message after it. A lone surrogate has no
 * UTF-8 form: it would go out as U+FFFD, the topic of another id.
 */
function acceptedCodePoint(s: string, i: number): number {
  const c = s.codePointAt(i) as number
  if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return -1
  if (c >= 0xd800 && c <= 0xdfff) return -1
  if ((c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) === 0xfffe) return -1
  return c
}

/** True when every character of `s` is one Mosquitto accepts in a topic (see acceptedCodePoint). */
function validTopicText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // The common case (printable ASCII) without the code-point work.
    if (c >= 0x20 && c < 0x7f) continue
    const cp = acceptedCodePoint(s, i)
    if (cp < 0) return false
    if (cp > 0xffff) i++
  }
  return true
}

/**
 * True when `id` can be one topic level of a publish: a non-empty string of at most
 * `maxLength` characters without '/', '+' or '#' and without anything Mosquitto refuses in a
 * topic (controls, lone surrogates, non-characters). The one check for every id that becomes a
 * topic level (fleet beacon topics, the gateway's beacon topics, discovery object ids).
 */
export function isTopicLevel(id: unknown, maxLength = MAX_TOPIC_LEVEL): id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > maxLength) return false
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i)
    if (c === 0x2f || c === 0x2b || c === 0x23) return false
  }
  return validTopicText(id)
}

/**
 * True when `topic` is a valid topic to publish to: non-empty, no wildcard, at most 65,535
 * UTF-8 bytes, nothing Mosquitto refuses. The outbox checks every topic with it before sending.
 */
export function isPublishTopic(topic: string): boolean {
  if (topic.length === 0 || topic.length > MAX_TOPIC_BYTES || topic.includes('+') || topic.includes('#')) return false
  return validTopicText(topic) && Buffer.byteLength(topic, 'utf8') <= MAX_TOPIC_BYTES
}
