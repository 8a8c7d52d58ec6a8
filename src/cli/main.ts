// Entry point of the `beaconkit` command; the commands themselves live beside it.
console.error('beaconkit: the command line is not built yet')
process.exitCode = 1
