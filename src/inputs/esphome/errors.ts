/**
 * The one error an ESPHome proxy connection ends with. Every failure of one device (refused
 * connection, wrong key, not ESPHome, garbage, an oversized frame, silence) closes that device's
 * connection only; the proxy retries later and nothing else is touched. Messages name the device
 * (host:port, and its name once known) and never a key.
 */
import { BeaconkitError } from '../../errors.js'

/** Why an ESPHome connection ended. */
export type EspHomeErrorCode =
  /** TCP connect failed or timed out, or the device closed the connection. */
  | 'unreachable'
  /** The connection closed or stalled before the handshake and hello were done. */
  | 'timeout'
  /** The device answered in plaintext where a key was configured, or the other way round. */
  | 'encryption_mismatch'
  /** The Noise handshake failed on the key (the device said "Handshake MAC failure"). */
  | 'wrong_key'
  /** Bytes that are not the ESPHome native API (bad preamble, bad varint, undecodable message). */
  | 'protocol'
  /** A frame claiming more bytes than any message of the API needs. */
  | 'frame_too_large'
  /** The device asks for an API password, which beaconkit does not send. */
  | 'password_required'
  /** No byte from the device within the keepalive window. */
  | 'silent'
  /** The device said goodbye (DisconnectRequest) or the client was closed. */
  | 'closed'

/** An ESPHome proxy connection failed; `device` is `host:port` (and the name once known). */
export class EspHomeError extends BeaconkitError<EspHomeErrorCode> {
  /** `host:port`, followed by ` (name)` when the device has told its name. */
  readonly device: string

  constructor(code: EspHomeErrorCode, device: string, message: string, options?: { cause?: unknown }) {
    super(code, `ESPHome device ${device}: ${message}`, options)
    this.device = device
  }
}
