from dralint.cli.main import command_line

command_line()
