import { describe, expect, it } from 'vitest'
import { parseCommandLine, parseInvocation } from '../../src/cli/args.js'
import { COMMAND_LIST, COMMANDS } from '../../src/cli/commands/registry.js'
import { helpText } from '../../src/cli/help.js'

// The registry is the only list of commands: the parser, the help and the entry point read it.
describe('the command registry', () => {
  it('names each command once, and the overview lists every command in its order', () => {
    expect(new Set(COMMANDS).size).toBe(COMMANDS.length)
    const overview = helpText()
    let from = 0
    for (const command of COMMAND_LIST) {
      for (const [usage] of command.overview) {
        const at = overview.indexOf(`\n  ${usage} `, from)
        expect(at, `${usage} in the overview`).toBeGreaterThan(from - 1)
        from = at
      }
    }
  })

  it('documents every option a command accepts in that command\'s help', () => {
    const undocumented: string[] = []
    for (const command of COMMAND_LIST) {
      for (const name of Object.keys(command.options)) {
        if (!command.help.includes(`--${name}`)) undocumented.push(`${command.name} --${name}`)
      }
    }
    expect(undocumented).toEqual([])
  })

  it('answers --help of every command with its own help, and binds every other command line to a runner', () => {
    for (const name of COMMANDS) {
      expect(parseCommandLine([name, '--help'])).toEqual({ command: 'help', topic: name })
      expect(helpText(name)).toBe(COMMAND_LIST.find((c) => c.name === name)?.help)
    }
    const invocation = parseInvocation(['broker', '--port', '0'])
    expect(invocation.parsed).toEqual({ command: 'broker', port: 0, host: '127.0.0.1' })
    expect(typeof invocation.run).toBe('function')
    expect(parseInvocation(['--version']).run).toBeUndefined()
  })

  it('refuses an option of another command, naming the command whose help to read', () => {
    expect(() => parseCommandLine(['broker', '--site', 'x.json'])).toThrow(/unknown option --site for `beaconkit broker`.*beaconkit broker --help/)
  })
})
