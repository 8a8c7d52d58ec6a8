// The consistency rule of merged values: fields that come from one byte (or are computed from
// one another) are replaced together, so a reading or a tracked beacon never pairs a new value
// with a stale partner. Returns what is wrong, empty when nothing is.
import { beaconIdOf } from '../../src/frames/ibeacon.js'
import { modelByte } from '../../src/frames/fields.js'
import { transmitPowerDbm } from '../../src/frames/bit-fields.js'
import { proximity } from '../../src/decode/distance.js'
import type { BeaconReading } from '../../src/reading.js'

export function inconsistencies(r: Readonly<BeaconReading>): string[] {
  const out: string[] = []
  // movingState and moving come from one byte: moving exists exactly for moving/still.
  const wantMoving = r.movingState === 'moving' ? true : r.movingState === 'still' ? false : undefined
  if (r.moving !== wantMoving) out.push(`moving ${r.moving} beside movingState ${r.movingState}`)
  // The dBm is the model's table entry for the level: never without a level, never another model's.
  if (r.transmitPowerDbm !== undefined) {
    if (r.transmitPower === undefined) out.push(`transmitPowerDbm ${r.transmitPowerDbm} without a transmitPower level`)
    else if (r.hardwareModelName === undefined) out.push('transmitPowerDbm without a hardware model')
  }
  if (r.transmitPower !== undefined && r.hardwareModelName !== undefined) {
    const want = transmitPowerDbm(modelByte(r.hardwareModelName), r.transmitPower)
    if (r.transmitPowerDbm !== want) out.push(`transmitPowerDbm ${r.transmitPowerDbm} for level ${r.transmitPower} of model ${r.hardwareModelName} (table: ${want})`)
  }
  // The beaconID is exactly UUID|major|minor of the fields beside it.
  if (r.proximityUUID !== undefined && r.major !== undefined && r.minor !== undefined) {
    if (r.beaconID !== beaconIdOf(r.proximityUUID, r.major, r.minor)) out.push(`beaconID ${r.beaconID} beside ${r.proximityUUID} ${r.major} ${r.minor}`)
  } else if (r.beaconID !== undefined) out.push(`beaconID ${r.beaconID} without all of UUID, major and minor`)
  // Proximity is the zone of the accuracy beside it (default zone bounds).
  if (r.accuracy !== undefined && r.proximity !== proximity(r.accuracy)) out.push(`proximity ${r.proximity} for accuracy ${r.accuracy}`)
  if ((r.accuracy === undefined) !== (r.proximity === undefined)) out.push('accuracy and proximity not both present')
  // A switched-off sensor is null, a reading a finite number; nothing else.
  for (const k of ['temperature', 'light'] as const) {
    const v = r[k]
    if (v !== undefined && v !== null && !Number.isFinite(v)) out.push(`${k} ${v}`)
  }
  return out
}
