/**
 * The NNpsk0 handshake against noise-c (through @richardhopton/noise-c.wasm, a devDependency of
 * the real client library): the C library ESPHome's firmware links (api_frame_helper.cpp), here
 * as the responder, with beaconkit's initiator, the client's side.
 */
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { NoiseAuthError, NoiseHandshake } from '../../../src/inputs/esphome/noise.js'

interface NoiseC {
  HandshakeState(
    name: string,
    role: number,
  ): {
    Initialize(prologue: Uint8Array, s: null, rs: null, psk: Uint8Array): void
    WriteMessage(payload?: Uint8Array): Uint8Array
    ReadMessage(message: Uint8Array, payloadNeeded: boolean): Uint8Array
    Split(): [CipherC, CipherC]
  }
  constants: { NOISE_ROLE_RESPONDER: number }
}
interface CipherC {
  EncryptWithAd(ad: Uint8Array, plaintext: Uint8Array): Uint8Array
  DecryptWithAd(ad: Uint8Array, ciphertext: Uint8Array): Uint8Array
}

const req = createRequire(createRequire(import.meta.url).resolve('@2colors/esphome-native-api'))
const createNoise = req('@richardhopton/noise-c.wasm') as (done: (n: NoiseC) => void) => void
const PROLOGUE = Buffer.from('NoiseAPIInit\0\0', 'latin1')
const PSK = Buffer.alloc(32, 0x42)

async function responder(psk: Uint8Array): Promise<ReturnType<NoiseC['HandshakeState']>> {
  const noise = await new Promise<NoiseC>((resolve) => createNoise(resolve))
  const hs = noise.HandshakeState('Noise_NNpsk0_25519_ChaChaPoly_SHA256', noise.constants.NOISE_ROLE_RESPONDER)
  hs.Initialize(new Uint8Array(PROLOGUE), null, null, new Uint8Array(psk))
  return hs
}

describe('NoiseHandshake (NNpsk0) against noise-c', () => {
  it('completes the handshake and exchanges transport messages both ways', async () => {
    const device = await responder(PSK)
    const client = new NoiseHandshake('initiator', PSK, PROLOGUE)
    device.ReadMessage(new Uint8Array(client.writeMessage()), false)
    client.readMessage(Buffer.from(device.WriteMessage()))
    const { send, receive } = client.split()
    const [deviceSend, deviceReceive] = device.Split()
    for (let i = 0; i < 3; i++) {
      const up = Buffer.from(`hello device ${i}`)
      expect(Buffer.from(deviceReceive.DecryptWithAd(new Uint8Array(0), new Uint8Array(send.encrypt(up))))).toEqual(up)
      const down = new Uint8Array(Buffer.from(`hello client ${i}`))
      expect(receive.decrypt(Buffer.from(deviceSend.EncryptWithAd(new Uint8Array(0), down)))).toEqual(Buffer.from(down))
    }
  })

  it('fails on the device side with a wrong key, as "Handshake MAC failure" there', async () => {
    const device = await responder(Buffer.alloc(32, 0x43))
    const client = new NoiseHandshake('initiator', PSK, PROLOGUE)
    expect(() => device.ReadMessage(new Uint8Array(client.writeMessage()), false)).toThrow()
  })

  it('refuses a tampered reply and a short one', () => {
    const device = new NoiseHandshake('responder', PSK, PROLOGUE)
    const client = new NoiseHandshake('initiator', PSK, PROLOGUE)
    device.readMessage(client.writeMessage())
    const reply = device.writeMessage()
    reply[40] ^= 1
    expect(() => client.readMessage(reply)).toThrow(NoiseAuthError)
    expect(() => new NoiseHandshake('initiator', PSK, PROLOGUE).readMessage(Buffer.alloc(10))).toThrow(NoiseAuthError)
  })

  it('refuses a psk that is not 32 bytes', () => {
    expect(() => new NoiseHandshake('initiator', Buffer.alloc(16), PROLOGUE)).toThrow(RangeError)
  })
})
