import { describe, it, expect } from 'vitest'
import { formatAdvertisementLine, formatRecordingHeader, parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'

describe('JSONL advertisement lines', () => {
  it('round-trips every field, bytes as lower-case hex', () => {
    const adv: Advertisement = {
      address: 'aa:bb:cc:dd:ee:0f',
      addressType: 'random',
      rssi: -71,
      timestamp: 1_767_225_600_123,
      connectable: false,
      localName: 'door',
      txPowerLevel: 4,
      manufacturerData: Uint8Array.from([0x4c, 0x00, 0x02, 0x15, 0xab]),
      serviceData: [{ uuid: '81e7', data: Uint8Array.from([0xc0, 0x41]) }],
    }
    const line = formatAdvertisementLine(adv)
    expect(line).toBe(
      '{"t":1767225600123,"address":"aa:bb:cc:dd:ee:0f","rssi":-71,"addressType":"random","connectable":false,"localName":"door","txPowerLevel":4,"manufacturerData":"4c000215ab","serviceData":[{"uuid":"81e7","data":"c041"}]}',
    )
    expect(parseAdvertisementLine(line)).toEqual({ kind: 'advertisement', advertisement: adv })
  })

  it('keeps the adapter that heard an advertisement (recordings of several adapters)', () => {
    const adv: Advertisement = { address: 'aa:bb:cc:dd:ee:0f', rssi: -71, timestamp: 5, adapter: 'hci1' }
    const line = formatAdvertisementLine(adv)
    expect(line).toBe('{"t":5,"address":"aa:bb:cc:dd:ee:0f","rssi":-71,"adapter":"hci1"}')
    expect(parseAdvertisementLine(line)).toEqual({ kind: 'advertisement', advertisement: adv })
  })

  it('ignores unknown keys and lower-cases the address', () => {
    const r = parseAdvertisementLine('{"t":5,"address":"AA:BB:CC:DD:EE:FF","rssi":-50,"note":"x"}')
    expect(r).toEqual({ kind: 'advertisement', advertisement: { address: 'aa:bb:cc:dd:ee:ff', rssi: -50, timestamp: 5 } })
  })

  it('recognises the header and blank lines', () => {
    const header = formatRecordingHeader({ site: 'lab', format: 'ignored' })
    expect(JSON.parse(header)).toEqual({ format: 'beaconkit-advertisements', version: 1, site: 'lab' })
    expect(parseAdvertisementLine(header)).toMatchObject({ kind: 'header', header: { site: 'lab' } })
    expect(parseAdvertisementLine('   ')).toEqual({ kind: 'blank' })
  })

  it.each([
    ['{"t":1,"address":"aa:bb', 'not valid JSON'],
    ['[1,2]', 'not a JSON object'],
    ['{"address":"aa:bb:cc:dd:ee:ff","rssi":-50}', '"t"'],
    ['{"t":1,"address":"nope","rssi":-50}', '"address"'],
    ['{"t":1,"address":"aa:bb:cc:dd:ee:ff","rssi":"-50"}', '"rssi"'],
    ['{"t":1,"address":"aa:bb:cc:dd:ee:ff","rssi":-50,"manufacturerData":"abc"}', '"manufacturerData"'],
    ['{"t":1,"address":"aa:bb:cc:dd:ee:ff","rssi":-50,"serviceData":[{"uuid":"81e7"}]}', '"serviceData"'],
    ['{"t":1,"address":"aa:bb:cc:dd:ee:ff","rssi":-50,"addressType":"weird"}', '"addressType"'],
    ['{"format":"beaconkit-advertisements","version":2}', 'unsupported version'],
    ['{"t":1,"address":"aa:bb:cc:dd:ee:ff","rssi":-50,"adapter":1}', '"adapter"'],
    ['{"t":1,"address":"aa:bb:cc:dd:ee:ff","rssi":-50,"adapter":""}', '"adapter"'],
  ])('reports %s as malformed', (line, reason) => {
    const r = parseAdvertisementLine(line)
    expect(r.kind).toBe('malformed')
    expect(r.kind === 'malformed' ? r.reason : '').toContain(reason)
  })
})
