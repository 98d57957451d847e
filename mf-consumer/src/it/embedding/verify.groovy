// The program's output, as the README shows it.
def log = new File(basedir, 'build.log').text
assert log.contains('first request -> slow-strong')
assert log.contains('after slow answers -> fast-cheap')
assert !log.contains('IllegalAccessError')
return true
