/** perpbot command line (placeholder until the bot lands). */
const command = process.argv[2] ?? 'run'
console.log(`perpbot ${command}: not yet implemented (the bot lands with a later issue).`)
process.exit(0)
