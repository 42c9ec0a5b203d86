from weatherly.cli import main

raise SystemExit(main())
