from dralint.cli import main

main()
