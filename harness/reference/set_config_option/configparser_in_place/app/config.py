import configparser


def set_option(path, section, key, value):
    config = configparser.ConfigParser()
    config.read(path)
    if not config.has_section(section):
        config.add_section(section)
    config[section][key] = value
    with open(path, "w") as configfile:
        config.write(configfile)
