from dralint.cli.main import main

main()
