import Command

// The thin executable: `Command` decides everything; this target adds only
// the allocator it runs on (see Package.swift).
Program.main()
