// `--http [host:]port` and `--http-token` on the commands that show beacons.
import { describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { refused } from './refused.js'

function view(argv: string[]): unknown {
  const parsed = parseCommandLine(argv)
  return 'view' in parsed ? parsed.view.http : undefined
}

describe('--http', () => {
  it('takes a port (loopback), host:port or [ipv6]:port on scan, replay and simulate', () => {
    expect(view(['scan', '--http', '8080'])).toEqual({ host: '127.0.0.1', port: 8080 })
    expect(view(['replay', '--demo', '--http', '0.0.0.0:9000', '--http-token', 'abcdefghijklmnop'])).toEqual({ host: '0.0.0.0', port: 9000, token: 'abcdefghijklmnop' })
    expect(view(['simulate', '--http', '[::1]:8080'])).toEqual({ host: '::1', port: 8080 })
    expect(view(['simulate'])).toBeUndefined()
  })

  it('refuses a bad address, a token without --http and a token a URL would mangle, without echoing the token', () => {
    expect(refused(['scan', '--http', 'localhost']).option).toBe('http')
    expect(refused(['scan', '--http', '70000']).option).toBe('http')
    expect(refused(['scan', '--http-token', 'abcdefghijklmnop']).option).toBe('http-token')
    const e = refused(['scan', '--http', '8080', '--http-token', 'short/secret#x'])
    expect(e.option).toBe('http-token')
    expect(e.message).not.toContain('short/secret')
  })
})

describe('--metrics', () => {
  function metrics(argv: string[]): unknown {
    const parsed = parseCommandLine(argv)
    return 'view' in parsed ? parsed.view.metrics : 'metrics' in parsed ? parsed.metrics : undefined
  }

  it('takes [host:]port and a token on scan, replay, simulate and fleet', () => {
    expect(metrics(['scan', '--metrics', '9464'])).toEqual({ host: '127.0.0.1', port: 9464 })
    expect(metrics(['replay', '--demo', '--metrics', '0.0.0.0:9464', '--metrics-token', 'abcdefghijklmnop'])).toEqual({ host: '0.0.0.0', port: 9464, token: 'abcdefghijklmnop' })
    expect(metrics(['fleet', '--mqtt', 'mqtt://127.0.0.1:1883', '--metrics', '[::1]:9464'])).toEqual({ host: '::1', port: 9464 })
    expect(metrics(['simulate'])).toBeUndefined()
  })

  it('refuses a bad address, a token without --metrics and a bad token, without echoing the token', () => {
    expect(refused(['scan', '--metrics', 'localhost']).option).toBe('metrics')
    expect(refused(['fleet', '--mqtt', 'mqtt://127.0.0.1:1883', '--metrics-token', 'abcdefghijklmnop']).option).toBe('metrics-token')
    const e = refused(['scan', '--metrics', '9464', '--metrics-token', 'short/secret#x'])
    expect(e.option).toBe('metrics-token')
    expect(e.message).not.toContain('short/secret')
  })
})
