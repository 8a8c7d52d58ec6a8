/** The model's `upload` section as the settings of the cloud upload, checked; each problem named by its path. */

import type { BeaconkitConfig } from '../../config/load-config.js'
import { quoted } from './problems.js'
import type { SettingProblems } from './problems.js'

/** Upload to the platform's account interface. */
export interface UploadSettings {
  cloudUrl: string
  email: string
  /** File whose first line is the account password (wins over `password`). */
  passwordFile?: string
  /** The account password itself, from the environment or a private config file; a secret. */
  password?: string
  /** A durable queue in this directory (default: in memory). */
  queueDir?: string
}

const COMPANIONS = ['cloudUrl', 'email', 'passwordFile', 'password', 'queueDir'] as const
const OPTION = {
  cloudUrl: 'cloud-url',
  email: 'email',
  passwordFile: 'password-file',
  password: 'password',
  queueDir: 'queue-dir',
} as const

/** The upload's settings, or undefined unless `upload.enabled`. */
export function uploadSettings(model: BeaconkitConfig, problems: SettingProblems): UploadSettings | undefined {
  const u = model.upload ?? {}
  if (u.enabled !== true) {
    for (const key of COMPANIONS)
      if (u[key] !== undefined)
        problems.add(
          `upload.${key}`,
          `--${OPTION[key]} only takes effect with --upload; add --upload to send data to the cloud`,
        )
    return undefined
  }
  const { cloudUrl, email, passwordFile } = u
  // A password file wins over the password itself.
  const password = passwordFile === undefined ? u.password : undefined
  if (cloudUrl === undefined)
    problems.add(
      'upload.cloudUrl',
      '--upload needs --cloud-url <url> (the account interface, e.g. from `beaconkit emulate`)',
    )
  else if (!isHttpUrl(cloudUrl))
    problems.add('upload.cloudUrl', `--cloud-url must be an http(s) URL, not ${quoted(cloudUrl)}`)
  if (email === undefined) problems.add('upload.email', '--upload needs --email <account e-mail>')
  if (passwordFile === undefined && password === undefined)
    problems.add(
      'upload.passwordFile',
      '--upload needs --password-file <file> holding the account password (a file, so the password ' +
        'stays out of the process list)',
    )
  if (cloudUrl === undefined || email === undefined) return undefined
  return {
    cloudUrl,
    email,
    ...(passwordFile === undefined ? { password } : { passwordFile }),
    ...(u.queueDir === undefined ? {} : { queueDir: u.queueDir }),
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}
